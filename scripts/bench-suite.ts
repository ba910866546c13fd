/**
 * npm run bench:suite [-- --busy]: `.ci/run` in a fresh clone of this commit, timed on its own and,
 * with --busy, again beside two busy loops (lib/bench/suite.ts); rewrites its section of
 * docs/benchmarks.md. Each run's output is kept in the bench's folder, named at the end; the clone
 * it ran in (its node_modules and caches, over 500 MB) is removed.
 *
 * npm run bench:suite -- --files [--jobs N] [--only A,B] [--skip A,B]: each file of the vitest
 * self-test on its own, in this checkout, its CPU counted by the kernel (lib/bench/suiteFiles.ts);
 * prints the table of the heaviest and writes every figure as JSON beside it. `--skip` leaves out
 * files that cannot run beside other work (selftest/attacks/bare.test.ts leaves files on purpose).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { describeMachine, machine } from '../lib/bench/measure';
import { withSection } from '../lib/bench/benchmarksDoc';
import { measureSuite, suiteSection } from '../lib/bench/suite';
import { filesTable, measureFiles, selfTestFiles } from '../lib/bench/suiteFiles';
import { PROJECT_ROOT } from '../lib/paths';

const flags = parseFlags(
  process.argv.slice(2),
  { busy: 'boolean', files: 'boolean', jobs: 'number', only: 'string', skip: 'string' },
  'npm run bench:suite [-- --busy] | [-- --files [--jobs N] [--only FILE,...] [--skip FILE,...]]',
);
const list = (value: string | undefined) => (value ? value.split(',').map((f) => f.trim()).filter(Boolean) : undefined);

async function byFile(): Promise<void> {
  const skip = list(flags.skip) ?? [];
  const files = (list(flags.only) ?? selfTestFiles()).filter((f) => !skip.includes(f));
  const runs = await measureFiles(files, flags.jobs ?? 2, (line) => console.log(`bench:suite: ${line}`));
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).stdout.trim();
  const json = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-files-')), 'files.json');
  fs.writeFileSync(json, `${JSON.stringify({ commit, date: new Date().toISOString(), machine: machine(), runs }, null, 2)}\n`);
  console.log([
    ...filesTable(runs, 20),
    '',
    `(Measured on ${new Date().toISOString().slice(0, 10)} by \`npm run bench:suite -- --files\` at commit ${commit}, ${flags.jobs ?? 2} files at a time, on ${describeMachine(machine())}.)`,
    `Every file's figures: ${json}`,
  ].join('\n'));
  if (runs.some((r) => r.failed > 0)) process.exitCode = 1;
}

async function main(): Promise<void> {
  if (flags.files) return byFile();
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
