/**
 * What CI waits for: `.ci/run` (npm ci, then npm run selftest) in a fresh clone of this commit,
 * timed on its own and beside two busy loops (as a shared runner is). The figures are wall time,
 * the CPU time of everything the run started (counted by the kernel in a control group where one can
 * be made, else the shell's `times`, which misses what init reaped: cpuGroup.ts), and the run's own
 * tally line.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths';
import { makeCpuGroup } from './cpuGroup';
import { KEPT_BELOW } from './benchmarksDoc';

export const SUITE_HEADING = '## The self-test suite';
/** Issue 45's goals, in minutes: on 2 cores at rest, and beside two busy loops. */
export const SUITE_GOAL_MINUTES = { quiet: 8, busy: 12 };

export interface SuiteRun {
  busy: boolean;
  wallSeconds: number;
  /** User + system CPU of every process the run started. */
  cpuSeconds: number;
  /** Who counted it: the kernel (a control group holding the run), or the shell's `times` and why no group could be made. */
  cpuCounted: { by: 'kernel' } | { by: 'shell'; why: string };
  /** `N passed, M failed, K skipped`, the run's last line. */
  tally: string;
  /** The vitest part's own duration, as vitest printed it, when it did. */
  vitestSeconds?: number;
  loadAtStart: number;
  ok: boolean;
}

/** Two processes that spin for ever: the other tenants of a shared CI runner. */
function busyLoops(): ChildProcess[] {
  return [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

/** A fresh clone of the checked-out commit (what CI starts from): nothing installed, nothing built. */
function freshClone(into: string): { dir: string; commit: string } {
  // mkdtemp makes folders 700: children that run as other users could not reach the clone's runtime, as they reach a CI checkout.
  fs.chmodSync(into, 0o755);
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).stdout.trim();
  const dir = path.join(into, 'clone');
  const clone = spawnSync('git', ['clone', '-q', PROJECT_ROOT, dir], { encoding: 'utf8' });
  if (clone.status !== 0) throw new Error(`git clone failed: ${clone.stderr}`);
  return { dir, commit };
}

/**
 * `.ci/run` in a fresh clone of this commit made in `work`, on its own and, with `busyToo`, again
 * beside two busy loops; each run's output is kept in `work` (quiet.log, busy.log).
 */
export async function measureSuite(work: string, busyToo: boolean, say: (line: string) => void): Promise<{ runs: SuiteRun[]; commit: string }> {
  const { dir, commit } = freshClone(work);
  const runs: SuiteRun[] = [];
  for (const busy of busyToo ? [false, true] : [false]) {
    const log = path.join(work, busy ? 'busy.log' : 'quiet.log');
    say(`.ci/run ${busy ? 'beside two busy loops' : 'on its own'} (output in ${log})…`);
    // Each run starts from the same fresh clone: what the one before left (node_modules, caches) is removed.
    spawnSync('git', ['clean', '-qfdx'], { cwd: dir });
    const run = await timeCiRun(dir, log, busy);
    say(`  ${run.tally}, ${(run.wallSeconds / 60).toFixed(1)} min`);
    runs.push(run);
  }
  return { runs, commit };
}

/** `.ci/run` in `clone`, its output copied to `log`. */
async function timeCiRun(clone: string, log: string, busy: boolean): Promise<SuiteRun> {
  const loops = busy ? busyLoops() : [];
  const loadAtStart = os.loadavg()[0];
  // The busy loops stay outside it: the group counts the run alone.
  const group = makeCpuGroup(`attention-bench-suite-${process.pid}-${busy ? 'busy' : 'quiet'}`);
  const join = 'joinCommand' in group ? `${group.joinCommand} && ` : '';
  const start = Date.now();
  try {
    // `times` prints the shell's and then its children's user and system CPU.
    const run = spawn('/bin/bash', ['-c', `${join}.ci/run; status=$?; times; exit $status`], { cwd: clone, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = fs.createWriteStream(log);
    let text = '';
    run.stdout.on('data', (chunk: Buffer) => {
      out.write(chunk);
      text += chunk.toString();
      if (text.length > 1 << 20) text = text.slice(-(1 << 19));
    });
    run.stderr.pipe(out);
    const status = await new Promise<number>((resolve) => run.on('close', (code) => resolve(code ?? 1)));
    out.end();
    const wallSeconds = (Date.now() - start) / 1000;
    const { cpuSeconds, tally, vitestSeconds } = readRunOutput(text);
    const counted = 'joinCommand' in group
      ? { cpuSeconds: group.seconds(), cpuCounted: { by: 'kernel' as const } }
      : { cpuSeconds, cpuCounted: { by: 'shell' as const, why: group.why } };
    return { busy, wallSeconds, ...counted, tally, vitestSeconds, loadAtStart, ok: status === 0 };
  } finally {
    for (const loop of loops) loop.kill('SIGKILL');
    if ('remove' in group) group.remove();
  }
}

/** The figures a run's output states: the shell's `times` (its own line, then its children's), the tally, vitest's duration. */
export function readRunOutput(text: string): { cpuSeconds: number; tally: string; vitestSeconds?: number } {
  const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
  const times = [...plain.matchAll(/^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/gm)].at(-1);
  const cpuSeconds = times ? Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4]) : NaN;
  const tally = [...plain.matchAll(/^(\d+ passed, \d+ failed(?:, \d+ skipped)?)$/gm)].at(-1)?.[1] ?? 'no tally printed';
  // The self-tests' vitest run comes first (the browser one, when Chromium is there, after it).
  const vitest = /^\s*Duration\s+([\d.]+)(m?s)\b/m.exec(plain);
  const vitestSeconds = vitest ? Number(vitest[1]) / (vitest[2] === 'ms' ? 1000 : 1) : undefined;
  return { cpuSeconds, tally, vitestSeconds };
}

const minutes = (s: number) => `${(s / 60).toFixed(1)} min`;

/** How the runs' CPU was counted, said once for all of them. */
function cpuCountedBy(runs: readonly SuiteRun[]): string {
  const shell = runs.flatMap((r) => (r.cpuCounted.by === 'shell' ? [r.cpuCounted.why] : []));
  if (!shell.length) return 'counted by the kernel in a control group holding the run (whoever reaped each process)';
  return `as the shell's \`times\` counted it, an undercount: it misses every process reaped by init, as the grading ` +
    `processes' launchers and the contained children they waited for are (no control group could be made: ${[...new Set(shell)].join('; ')})`;
}

export function suiteSection(runs: readonly SuiteRun[], footer: string): string[] {
  const rows = runs.map((r) => {
    const goal = r.busy ? SUITE_GOAL_MINUTES.busy : SUITE_GOAL_MINUTES.quiet;
    return `| ${r.busy ? 'beside two busy loops' : 'on its own'} | ${minutes(r.wallSeconds)} | ${minutes(r.cpuSeconds)} | ` +
      `${r.vitestSeconds === undefined ? '–' : `${r.vitestSeconds.toFixed(0)} s`} | ${r.loadAtStart.toFixed(2)} | ${r.tally} | ` +
      `**${(r.wallSeconds / 60 / goal).toFixed(2)}×** the ${goal} min goal${r.wallSeconds <= goal * 60 ? ' (met)' : ' (not met)'} |`;
  });
  return [
    SUITE_HEADING,
    '',
    '`.ci/run` (`npm ci`, then `npm run selftest`) in a fresh clone of the commit, as CI runs it: on a machine whose Node ' +
      'is not the Active LTS line the whole self-test re-runs under it, then the other lines are checked. CPU is the user ' +
      `and system time of every process the run started, ${cpuCountedBy(runs)}. Also on its own: \`npm run bench:suite\` ` +
      '(`-- --busy` adds the run beside two busy loops).',
    '',
    '| run | wall time | CPU time | the vitest part | load average at start | result | against the goal |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    footer,
    '',
    KEPT_BELOW,
  ];
}
