import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BLOCK, blockBase, mappedUids, processesOf, UidPool } from './uidPool';

describe('the block of uids a grading process gives its children', () => {
  it('reads the uid map of its user namespace', () => {
    expect(mappedUids('         0          0 4294967295\n')).toEqual([[0, 4294967295]]);
    expect(mappedUids('0 1000 1\n1 100000 65536\n')).toEqual([[0, 1], [1, 65536]]);
    expect(mappedUids('')).toEqual([]);
  });

  it('where every uid is mapped (Docker without user namespaces): far above any account, disjoint for distinct pids', () => {
    const all: [number, number][] = [[0, 4294967295]];
    expect(blockBase(7, all)).toBe(1_000_000_000 + 7 * BLOCK);
    const a = blockBase(4_194_303, all)!;
    expect(a + BLOCK - 1).toBeLessThan(2 ** 31);
    expect(Math.abs(blockBase(8, all)! - blockBase(7, all)!)).toBeGreaterThanOrEqual(BLOCK);
  });

  it('in a rootless container (about 65536 uids mapped): inside the mapped range, below nobody, above the usual accounts', () => {
    const rootless: [number, number][] = [[0, 1], [1, 65536]];
    for (const pid of [1, 2, 77, 4000]) {
      const base = blockBase(pid, rootless)!;
      expect(base).toBeGreaterThanOrEqual(1000);
      expect(base + BLOCK - 1).toBeLessThan(65534);
    }
  });

  it('none where too few uids are mapped', () => {
    expect(blockBase(1, [[0, 1]])).toBeUndefined();
  });

  it('hands out distinct uids and takes them back', () => {
    const pool = new UidPool(blockBase(process.pid)!, 3);
    const taken = [pool.acquire(), pool.acquire(), pool.acquire()];
    expect(new Set(taken).size).toBe(3);
    expect(() => pool.acquire()).toThrow(/all 3 uids for contained children .* are in use/);
    pool.release(taken[1]);
    expect(pool.acquire()).toBe(taken[1]);
  });
});

describe.runIf(process.getuid?.() === 0)('as root', () => {
  it('a uid comes back only once nothing runs under it: what a child left behind is killed', async () => {
    const pool = new UidPool(blockBase(process.pid)!, 2);
    const uid = pool.acquire();
    const left = spawn('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', 'sleep', '600'], { stdio: 'ignore', detached: true });
    const gone = new Promise((resolve) => left.on('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve) => {
      const wait = () => (processesOf(new Set([uid])).length > 0 ? resolve() : setTimeout(wait, 10));
      wait();
    });
    pool.release(uid);
    expect(processesOf(new Set([uid]))).toEqual([]);
    expect(await gone).toBe('SIGKILL');
  });
});
