/**
 * A child starved of a CPU by the scheduler (pinned beside a spinner, at a low weight) is charged
 * the CPU time it spent, not its wait, and one starved past 30 limits of wall time is a grader
 * failure, not a verdict (lib/sandbox/childClock.ts). The share the child gets is the scheduler's
 * to give: this file runs last, beside light work only (vitest.selftest.config.mts), where the
 * rest of the suite does not decide it. chargedTime.test.ts holds the rest of charged time.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChildSession } from '../../lib/sandbox/session';
import { callOf, children, sessionOf, softmaxCall, spinners } from './chargedKit';
import { materialize, tempDir } from './materialize';

const work = tempDir('starved');

describe('a child starved of a CPU', () => {
  function leadsOwnAutogroup(pid: number): boolean {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const session = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
    const group = fs.existsSync(`/proc/${pid}/autogroup`) ? fs.readFileSync(`/proc/${pid}/autogroup`, 'utf8') : '';
    return session === pid && /^\/autogroup-[1-9]/.test(group);
  }

  /** Pins the session's child to CPU 0 at `nice`, beside a spinner at nice 0 pinned there too. */
  async function starved(timeoutMs: number, nice: number): Promise<ChildSession> {
    const session = await sessionOf(materialize(path.join(__dirname, 'misbehaving', 'slow_softmax.ts'), work), timeoutMs);
    expect((await callOf(session, 'causal_mask')).kind).toBe('value'); // started and loaded
    // A session of its own, and so an autogroup of its own with all its weight on CPU 0: a spinner
    // in this test's autogroup would share that group's weight with whatever else the machine's
    // load puts in it, and the child would get more of the CPU the busier the machine.
    const spinner = spawn('taskset', ['-c', '0', process.execPath, '-e', 'for (;;);'], { stdio: 'ignore', detached: true });
    spinners.push(spinner);
    for (const pid of children().filter((pid) => pid !== spinner.pid)) {
      execFileSync('taskset', ['-a', '-p', '-c', '0', String(pid)], { stdio: 'ignore' });
      for (const tid of fs.readdirSync(`/proc/${pid}/task`)) execFileSync('renice', ['-n', String(nice), '-p', tid], { stdio: 'ignore' });
      // The contained child leads a session of its own, and so an autogroup, whose own nice is what
      // the scheduler weighs. Only a session's leader's: a wrapper shares this test's autogroup,
      // which is not this test's to renice, or the root one (autogroup-0, where a machine's init
      // never began a session), whose weight cannot be set (EINVAL) and where each thread's nice
      // is what counts.
      if (leadsOwnAutogroup(pid)) fs.writeFileSync(`/proc/${pid}/autogroup`, String(nice));
    }
    return session;
  }

  it('a child starved of a CPU (runnable, waiting behind a busier process) is not charged its wait', async () => {
    // At nice 10 the child gets about a tenth of the CPU: its 600 ms of CPU take about 6 s of wall
    // time, a quarter of which is over the 1 s limit.
    const session = await starved(1000, 10);
    const started = Date.now();
    expect(await softmaxCall(session)).toMatchObject({ kind: 'value' });
    // Only a test of the claim when the wall clock alone would have timed it out.
    expect(Date.now() - started).toBeGreaterThan(4 * 1000);
  }, 60_000);

  it('a child starved past 30 limits of wall time is no verdict but a grader failure, regraded on the next run', async () => {
    // At nice 19 the child gets about a seventieth of the CPU: after 6 s it has spent far less than its 200 ms.
    const session = await starved(200, 19);
    await expect(softmaxCall(session)).rejects.toThrow(/too loaded to time a call/);
  }, 60_000);
});
