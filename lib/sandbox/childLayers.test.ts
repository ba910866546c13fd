import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { limits, PROCESS_CAP } from './childLayers';
import { findTools, probeUidChange } from './probeLayers';
import { blockBase, uidPoolOfThisProcess } from './uidPool';

describe('the memory cap as prlimit sets it', () => {
  it.runIf(findTools().prlimit)('a cap of a fraction of a MiB (--memory 1536.3) is still in force, in whole bytes', () => {
    const layer = limits(findTools(), 1536.3 * 1024 ** 2, false);
    expect(layer.gaps).toEqual([]);
    const as = layer.prefix.find((arg) => arg.startsWith('--as='))!;
    expect(as).toMatch(/^--as=\d+$/);
  });
});

describe('the process cap of a child with a uid of its own (own-uids)', () => {
  const tools = findTools();
  /** Forks sleeping copies until a fork fails or `most` processes run on its uid: "processes errno", or "processes none". */
  const bomb = (most: number) =>
    `my $n = 1; my @kids; while ($n < ${most}) { my $p = fork(); if (!defined $p) { print "$n ", $!+0; kill "KILL", @kids; exit 0 } `
    + `if ($p == 0) { sleep 60; exit 0 } push @kids, $p; $n++ } print "$n none"; kill "KILL", @kids;`;

  // RLIMIT_NPROC binds a process that is not root: the child's own uid, set after the limit, as the
  // grader sets it. Where the change of uid is refused (root without CAP_SETUID), so is own-uids.
  const base = blockBase(process.pid);
  const canChangeUid = process.getuid?.() === 0 && Boolean(tools.prlimit && tools.setpriv && tools.perl) && base !== undefined && probeUidChange(tools, base) === true;
  it.runIf(canChangeUid)('a fork bomb stops at the cap of processes on its uid, refused with EAGAIN', () => {
    const pool = uidPoolOfThisProcess(base!);
    const uid = pool.acquire();
    const forks = (processes: boolean) => {
      const command = [...limits(tools, 512 * 1024 ** 2, processes).prefix, tools.setpriv!, `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', tools.perl!, '-e', bomb(PROCESS_CAP + 16)];
      const run = spawnSync(command[0], command.slice(1), { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      return run.stdout;
    };
    try {
      expect(forks(true)).toBe(`${PROCESS_CAP} ${os.constants.errno.EAGAIN}`);
      // Without the cap the same bomb gets past it: the cap, not something else, stopped it.
      expect(forks(false)).toBe(`${PROCESS_CAP + 16} none`);
    } finally {
      pool.release(uid);
    }
  });
});
