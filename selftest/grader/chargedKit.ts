/**
 * What the two files on charged time share (chargedTime.test.ts, starvedChild.test.ts): contained
 * sessions on a submission, a call of one graded function on its fixture, and the processes this
 * test process started, each cleaned up after every test.
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach } from 'vitest';
import { processTree } from '../../lib/sandbox/childClock';
import { launcherPid } from '../../lib/sandbox/launcher';
import type { ChildSession, SessionOutcome } from '../../lib/sandbox/session';
import type { GradedFunction } from '../../tests/cases';
import { gradeOptions, sessionFor } from './harness';

const sessions: ChildSession[] = [];
/** Processes a test started beside its sessions (a spinner): killed after it. */
export const spinners: ChildProcess[] = [];
afterEach(() => {
  sessions.splice(0).forEach((s) => s.kill());
  spinners.splice(0).forEach((p) => p.kill('SIGKILL'));
});

export async function sessionOf(dir: string, timeoutMs: number): Promise<ChildSession> {
  const session = await sessionFor(dir, { timeoutMs });
  sessions.push(session);
  return session;
}

export function callOf(session: ChildSession, fn: GradedFunction): Promise<SessionOutcome> {
  const options = gradeOptions();
  const graded = options.cases.find((c) => c.fn === fn)!;
  const fixture = options.fixtures.get(graded.fixture)!;
  return session.call(fn, { params: fixture.params, inputs: fixture.inputs });
}
export const softmaxCall = (session: ChildSession) => callOf(session, 'softmax');

/**
 * Every process this test process started: the contained children and their wrappers, not the
 * launcher that started them. Read from this process down, so each file has a worker of its own
 * (vitest.selftest.config.mts).
 */
export const children = () => processTree(process.pid).filter((pid) => pid !== process.pid && pid !== launcherPid());
