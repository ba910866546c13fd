/**
 * npm run bench:suite [-- --busy]: `.ci/run` in a fresh clone of this commit, timed on its own and,
 * with --busy, again beside two busy loops (lib/bench/suite.ts); rewrites its section of
 * docs/benchmarks.md. Each run's output is kept in the bench's folder, named at the end.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { describeMachine, machine } from '../lib/bench/measure';
import { withSection } from '../lib/bench/similarity';
import { freshClone, suiteSection, timeCiRun, type SuiteRun } from '../lib/bench/suite';
import { PROJECT_ROOT } from '../lib/paths';

const flags = parseFlags(process.argv.slice(2), { busy: 'boolean' }, 'npm run bench:suite [-- --busy]');

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-suite-'));
  // mkdtemp makes it 700: children that run as other users could not reach the clone's runtime, as they can a CI checkout.
  fs.chmodSync(work, 0o755);
  const { dir, commit } = freshClone(work);
  const runs: SuiteRun[] = [];
  for (const busy of flags.busy ? [false, true] : [false]) {
    const log = path.join(work, busy ? 'busy.log' : 'quiet.log');
    console.log(`bench:suite: .ci/run ${busy ? 'beside two busy loops' : 'on its own'} (output in ${log})…`);
    // Each run starts from the same fresh clone: node_modules and the caches the first left are removed.
    cleanClone(dir);
    runs.push(await timeCiRun(dir, log, busy));
    console.log(`  ${runs.at(-1)!.tally}, ${(runs.at(-1)!.wallSeconds / 60).toFixed(1)} min`);
  }
  const footer = `(Measured on ${new Date().toISOString().slice(0, 10)} by \`npm run bench:suite${flags.busy ? ' -- --busy' : ''}\` at commit ${commit}, on ` +
    `${describeMachine(machine())}.)`;
  const section = suiteSection(runs, footer);
  const file = path.join(PROJECT_ROOT, 'docs', 'benchmarks.md');
  fs.writeFileSync(file, withSection(fs.readFileSync(file, 'utf8'), section));
  console.log(section.join('\n'));
  if (runs.some((r) => !r.ok)) process.exitCode = 1;
}

/** What a run leaves in the clone besides its tracked files (node_modules, caches), removed. */
function cleanClone(dir: string): void {
  spawnSync('git', ['clean', '-qfdx'], { cwd: dir });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
