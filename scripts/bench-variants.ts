/**
 * npm run bench:variants [-- --draws N]: every correct catalogue solution graded on the hidden
 * cases drawn for N submission names (default 1,000; lib/bench/variants.ts); rewrites its section of
 * docs/benchmarks.md. Exits 1 when a draw failed a correct solution.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Submission } from '../adapters';
import { parseFlags } from '../lib/cli';
import { describeMachine, machine } from '../lib/bench/measure';
import { withSection } from '../lib/bench/benchmarksDoc';
import { variantsSection } from '../lib/bench/variants';
import { PROJECT_ROOT } from '../lib/paths';
import { loadVariants } from '../reference/fixtures/variants';
import { CORRECT } from '../selftest/catalogue';
import { gradeDraws } from '../selftest/gradeDraws';
import { GRADED_CASES } from '../tests/cases';

const flags = parseFlags(process.argv.slice(2), { draws: 'number' }, 'npm run bench:variants [-- --draws N]');
const draws = flags.draws ?? 1000;

async function main(): Promise<void> {
  const implementations = CORRECT.map((entry) => ({ name: entry.name, impl: require(entry.file) as Partial<Submission> }));
  const names = Array.from({ length: draws }, (_, i) => `student-${String(i).padStart(4, '0')}`);
  const start = Date.now();
  const graded = await gradeDraws(implementations, loadVariants('bench:variants'), names);
  const seconds = (Date.now() - start) / 1000;
  const footer = `(Measured on ${new Date().toISOString().slice(0, 10)} by \`npm run bench:variants${flags.draws ? ` -- --draws ${draws}` : ''}\` on ` +
    `${describeMachine(machine())}, load average ${os.loadavg()[0].toFixed(2)}; the self-test grades 24 draws of its own.)`;
  const section = variantsSection(
    { ...graded, implementations: implementations.map((i) => i.name), hiddenCases: GRADED_CASES.filter((c) => c.hidden).length, seconds }, footer,
  );
  const file = path.join(PROJECT_ROOT, 'docs', 'benchmarks.md');
  fs.writeFileSync(file, withSection(fs.readFileSync(file, 'utf8'), section));
  console.log(section.join('\n'));
  if (graded.failures.length) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
