/**
 * npm run bench:suite [-- --busy]: `.ci/run` in a fresh clone of this commit, timed on its own and,
 * with --busy, again beside two busy loops (lib/bench/suite.ts); rewrites its section of
 * docs/benchmarks.md. Each run's output is kept in the bench's folder, named at the end; the clone
 * it ran in (its node_modules and caches, over 500 MB) is removed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { describeMachine, machine } from '../lib/bench/measure';
import { withSection } from '../lib/bench/similarity';
import { measureSuite, suiteSection } from '../lib/bench/suite';
import { PROJECT_ROOT } from '../lib/paths';

const flags = parseFlags(process.argv.slice(2), { busy: 'boolean' }, 'npm run bench:suite [-- --busy]');

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-suite-'));
  let measured: Awaited<ReturnType<typeof measureSuite>>;
  try {
    measured = await measureSuite(work, Boolean(flags.busy), (line) => console.log(`bench:suite: ${line}`));
  } finally {
    fs.rmSync(path.join(work, 'clone'), { recursive: true, force: true });
  }
  const { runs, commit } = measured;
  const footer = `(Measured on ${new Date().toISOString().slice(0, 10)} by \`npm run bench:suite${flags.busy ? ' -- --busy' : ''}\` at commit ${commit}, on ` +
    `${describeMachine(machine())}.)`;
  const section = suiteSection(runs, footer);
  const file = path.join(PROJECT_ROOT, 'docs', 'benchmarks.md');
  fs.writeFileSync(file, withSection(fs.readFileSync(file, 'utf8'), section));
  console.log(section.join('\n'));
  if (runs.some((r) => !r.ok)) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
