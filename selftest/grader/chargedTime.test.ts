/**
 * A call is charged the CPU time its child spent, not the wall clock (lib/sandbox/childClock.ts):
 * the child is stopped mid-call (SIGSTOP, as a CPU it waits for on a loaded machine) for longer
 * than the limit, and an honest call still answers; a spinning hang still times out at its limit;
 * a sleeping hang, which spends no CPU, still ends at WALL_FACTOR × its limit. A child starved by
 * the scheduler is starvedChild.test.ts's, which needs the machine's scheduler to itself.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FunctionLedger } from '../../lib/grading/faults';
import { PROJECT_ROOT } from '../../lib/paths';
import { callOf, children, sessionOf, softmaxCall } from './chargedKit';
import { materialize, tempDir } from './materialize';

const work = tempDir('charged');

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
