/**
 * The launcher that starts contained children (lib/sandbox/launcher.ts) is the harness's: if it
 * dies while a child runs a call, the call gets no verdict (a GraderError, regraded next run), never
 * a crash or a timeout charged to the student whose child it was.
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { GraderError } from '../../lib/errors';
import { launcherPid } from '../../lib/sandbox/launcher';
import { gradeOptions, sessionFor } from './harness';
import { materialize, tempDir } from './materialize';

it('a launcher killed during a call: the call ends as a GraderError, and the next call starts a child again', async () => {
  const submissions = tempDir('launcher-loss');
  materialize(path.join(__dirname, '..', 'attacks', 'hang_in_softmax.ts'), submissions, 'hangs');
  const session = await sessionFor(path.join(submissions, 'hangs'));
  try {
    await session.started();
    const options = gradeOptions();
    const fixture = (fn: string) => options.fixtures.get(options.cases.find((c) => c.fn === fn)!.fixture)!;
    const call = session.call('softmax', { params: fixture('softmax').params, inputs: fixture('softmax').inputs });
    process.kill(launcherPid()!, 'SIGKILL');
    const failure = await call.then(() => undefined, (err: unknown) => err);
    expect(failure).toBeInstanceOf(GraderError);
    expect((failure as Error).message).toMatch(/process that starts contained children was killed by SIGKILL/);
    const causal = fixture('causal_mask');
    expect((await session.call('causal_mask', { params: causal.params, inputs: causal.inputs })).kind).toBe('value');
  } finally {
    session.kill();
  }
});
