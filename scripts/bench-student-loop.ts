/**
 * npm run bench:student-loop [-- --runs N]: the student loop against an empty vitest run
 * (lib/bench/studentLoop.ts); prints the medians and the ratio. `npm run bench` runs it too.
 */
import { parseFlags } from '../lib/cli';
import { describeMachine, machine } from '../lib/bench/measure';
import { measureStudentLoop, studentLoopTable } from '../lib/bench/studentLoop';

const flags = parseFlags(process.argv.slice(2), { runs: 'number' }, 'npm run bench:student-loop [-- --runs N]');
const result = measureStudentLoop(flags.runs ?? 7);
console.log(`machine: ${describeMachine(machine())}`);
console.log(studentLoopTable(result).join('\n'));
