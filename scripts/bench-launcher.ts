/**
 * npm run bench:launcher [-- --count N --mb M]: what starting a child costs the grading process,
 * spawned by the grader itself against started by the launcher (lib/sandbox/launcher.ts), at the
 * grader's own size and after it has grown by M MB of touched memory (a batch's grader holds
 * TypeScript, fixtures and results: a few hundred MB). Each start runs /bin/true, so only the start
 * is measured. CPU time, the grader's and the launcher's, is what load on the machine does not
 * inflate; the call's own time is how long the grader's event loop stood still.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { parseFlags } from '../lib/cli';
import { describeMachine, machine, median } from '../lib/bench/measure';
import { cpuMs } from '../lib/sandbox/childClock';
import { launch, launcherPid } from '../lib/sandbox/launcher';

const flags = parseFlags(process.argv.slice(2), { count: 'number', mb: 'number' }, 'npm run bench:launcher [-- --count N --mb M]');
const COUNT = flags.count ?? 40;
const GROW_MB = flags.mb ?? 400;

interface Row {
  /** Median time of the spawn or launch call itself, in ms: the grader's loop stops that long. */
  callMs: number;
  /** The grader's CPU per start, ms (user + system, every thread). */
  graderCpuMs: number;
  /** The launcher's CPU per start, ms. */
  launcherCpuMs: number;
}

const rssMb = () => Math.round(process.memoryUsage().rss / 1024 ** 2);
const cpuOfThisProcess = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function measure(start: () => { on(event: 'exit', listener: () => void): unknown }): Promise<Row> {
  const calls: number[] = [];
  const launcher = launcherPid();
  const launcherBefore = launcher === undefined ? 0 : cpuMs([launcher]) ?? 0;
  const before = cpuOfThisProcess();
  for (let i = 0; i < COUNT; i++) {
    const t = process.hrtime.bigint();
    const child = start();
    calls.push(Number(process.hrtime.bigint() - t) / 1e6);
    await new Promise<void>((resolve) => child.on('exit', resolve));
  }
  const graderCpuMs = (cpuOfThisProcess() - before) / COUNT;
  const launcherCpuMs = launcher === undefined ? 0 : ((cpuMs([launcher]) ?? launcherBefore) - launcherBefore) / COUNT;
  return { callMs: median(calls), graderCpuMs, launcherCpuMs };
}

const direct = () => spawn('/bin/true', [], { env: {}, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
const launched = () => launch('/bin/true', [], { detached: false });

/** Grows this process by `mb` MB of memory it has written (so its page tables are as large as a grader's). */
function grow(mb: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < mb; i += 50) chunks.push(Buffer.alloc(50 * 1024 ** 2, 1));
  return chunks;
}

const fmt = (row: Row) => `${row.callMs.toFixed(2)} ms | ${row.graderCpuMs.toFixed(2)} ms | ${row.launcherCpuMs.toFixed(2)} ms`;

async function main(): Promise<void> {
  // The launcher starts on first use: started (and warmed) before anything is counted.
  await new Promise<void>((resolve) => launched().on('exit', resolve));
  const rows: string[] = [];
  const round = async (label: string) => {
    const spawned = await measure(direct);
    const viaLauncher = await measure(launched);
    rows.push(`| ${label}, ${rssMb()} MB resident | grader spawns | ${fmt(spawned)} |`, `| | launcher starts | ${fmt(viaLauncher)} |`);
  };
  await round('as started');
  const kept = grow(GROW_MB);
  await round(`grown by ${GROW_MB} MB`);
  console.log(`machine: ${describeMachine(machine())}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(', ')}; ${COUNT} starts each`);
  console.log('| grader | who forks | the call (median) | grader CPU per start | launcher CPU per start |');
  console.log('| --- | --- | --- | --- | --- |');
  console.log(rows.join('\n'));
  kept.length = 0;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
