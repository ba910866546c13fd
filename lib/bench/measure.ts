/** What every benchmark shares: the machine it ran on, wall-clock timing and medians. */
import { spawnSync } from 'node:child_process';
import os from 'node:os';

export interface Machine {
  cores: number;
  cpu: string;
  node: string;
  platform: string;
  memoryGiB: number;
}

export function machine(): Machine {
  return {
    cores: os.availableParallelism(),
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown CPU',
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    memoryGiB: Math.round(os.totalmem() / 1024 ** 3),
  };
}

export function describeMachine(m: Machine): string {
  return `${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}`;
}

/** The middle value; for an even count the upper middle, so it is always a value that was measured. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of no values');
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

export function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Runs `node ...args` to completion and returns its wall time; a failing run is an error with its output. */
export function timeNode(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): number {
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const ms = elapsedMs(start);
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} failed in ${cwd}:\n${run.stdout}${run.stderr}`);
  return ms;
}
