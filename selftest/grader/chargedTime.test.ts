/**
 * A call is charged the CPU time its child spent, not the wall clock (lib/sandbox/childClock.ts):
 * the child is stopped mid-call (SIGSTOP, as a CPU it waits for on a loaded machine) for longer
 * than the limit, and an honest call still answers; a spinning hang still times out at its limit;
 * a sleeping hang, which spends no CPU, still ends at WALL_FACTOR × its limit.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FunctionLedger } from '../../lib/grading/faults';
import { PROJECT_ROOT } from '../../lib/paths';
import { processTree } from '../../lib/sandbox/childClock';
import { launcherPid } from '../../lib/sandbox/launcher';
import type { ChildSession, SessionOutcome } from '../../lib/sandbox/session';
import type { GradedFunction } from '../../tests/cases';
import { gradeOptions, sessionFor } from './harness';
import { materialize, tempDir } from './materialize';

const work = tempDir('charged');
const sessions: ChildSession[] = [];
const spinners: ChildProcess[] = [];
afterEach(() => {
  sessions.splice(0).forEach((s) => s.kill());
  spinners.splice(0).forEach((p) => p.kill('SIGKILL'));
});

async function sessionOf(dir: string, timeoutMs: number): Promise<ChildSession> {
  const session = await sessionFor(dir, { timeoutMs });
  sessions.push(session);
  return session;
}

function callOf(session: ChildSession, fn: GradedFunction): Promise<SessionOutcome> {
  const options = gradeOptions();
  const graded = options.cases.find((c) => c.fn === fn)!;
  const fixture = options.fixtures.get(graded.fixture)!;
  return session.call(fn, { params: fixture.params, inputs: fixture.inputs });
}
const softmaxCall = (session: ChildSession) => callOf(session, 'softmax');

/** Every process this test process started: the contained children and their wrappers, not the launcher that started them. */
const children = () => processTree(process.pid).filter((pid) => pid !== process.pid && pid !== launcherPid());

function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // gone already
    }
  }
}

describe('time charged to the child', () => {
  it('a child stopped mid-call for longer than the limit still answers: waiting for a CPU is not its time', async () => {
    const session = await sessionOf(path.join(PROJECT_ROOT, 'reference'), 1000);
    expect((await softmaxCall(session)).kind).toBe('value'); // started and loaded
    const call = softmaxCall(session);
    const stopped = children();
    signal(stopped, 'SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    signal(stopped, 'SIGCONT');
    expect((await call).kind).toBe('value');
  });

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

  it('a spinning hang times out at its limit of CPU time', async () => {
    const session = await sessionOf(materialize(path.join(__dirname, 'misbehaving', 'hang_in_attention.ts'), work), 500);
    expect(await callOf(session, 'scaled_dot_product_attention')).toMatchObject({ kind: 'timeout', budget: false });
  });

  it('a sleeping hang, which spends no CPU, still ends: at WALL_FACTOR × its limit of wall time', async () => {
    const session = await sessionOf(materialize(path.join(__dirname, 'misbehaving', 'sleep_in_softmax.ts'), work), 500);
    expect(await softmaxCall(session)).toMatchObject({ kind: 'timeout', budget: false });
  });

  it('the budget is spent in the same charged time: a stopped child spends little of it', async () => {
    const session = await sessionOf(path.join(PROJECT_ROOT, 'reference'), 1000);
    session.ledger = new FunctionLedger(3000, ['softmax']);
    expect((await softmaxCall(session)).kind).toBe('value');
    const call = softmaxCall(session);
    const stopped = children();
    signal(stopped, 'SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    signal(stopped, 'SIGCONT');
    expect((await call).kind).toBe('value');
    // 2.5 s of wall time went by; the call was charged its CPU time, or a quarter of the wall time.
    expect(session.ledger!.left('softmax')).toBeGreaterThan(3000 - 2500);
  });
});
