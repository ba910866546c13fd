import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { makeCpuGroup } from './cpuGroup';

const group = makeCpuGroup(`attention-cpu-group-test-${process.pid}`);

it.skipIf(!('joinCommand' in group))("counts a process that init reaped, which the shell's `times` misses", () => {
  if (!('joinCommand' in group)) return;
  try {
    // A grandchild left to init, spinning until it has spent 0.4 s of CPU (not of wall time: a busy machine changes nothing).
    const spin = `${JSON.stringify(process.execPath)} -e 'while (process.cpuUsage().user < 400000) {}'`;
    const run = spawnSync('/bin/bash', ['-c', `${group.joinCommand} && (${spin} & echo $! > /dev/null) && wait; sleep 0; times`], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    // Wait for the orphan, whose parent subshell has already gone.
    for (let i = 0; i < 600 && group.seconds() < 0.4; i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    expect(group.seconds()).toBeGreaterThanOrEqual(0.4);
    const [, minutes, seconds] = /^(\d+)m([\d.]+)s \d+m[\d.]+s$/m.exec(run.stdout.trim().split('\n').at(-1)!)!;
    expect(Number(minutes) * 60 + Number(seconds)).toBeLessThan(0.4);
  } finally {
    group.remove();
  }
});
