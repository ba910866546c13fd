/**
 * npm run bench:typecheck [-- --runs N]: the student's `npm run typecheck`, a second run and a run
 * after an edit, against an empty vitest run (lib/bench/typecheck.ts); prints the table. `npm run
 * bench` runs it too.
 */
import { parseFlags } from '../lib/cli';
import { describeMachine, machine } from '../lib/bench/measure';
import { measureTypecheck, typecheckSection } from '../lib/bench/typecheck';

const flags = parseFlags(process.argv.slice(2), { runs: 'number' }, 'npm run bench:typecheck [-- --runs N]');
const result = measureTypecheck(flags.runs ?? 7);
console.log(`machine: ${describeMachine(machine())}`);
console.log(typecheckSection(result).join('\n'));
