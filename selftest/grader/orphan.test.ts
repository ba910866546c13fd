/**
 * A process that outlives its child's exit is not left waiting on the channel for ever. Seen once:
 * the batch's last guard killed a child's wrapper while the child was starting, the contained
 * runtime slipped its parent-death signal and lived on, unowned, and the grading process, whose
 * end of the channel stayed open, never exited. Here the wrapper runs the contained child, then
 * leaves a reader of the channel behind when it exits; that reader must get EOF.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/paths';
import { processTree } from '../../lib/sandbox/childClock';
import { gradeOptions, sessionFor } from './harness';
import { tempDir } from './materialize';

/**
 * Whether a process is a contained runtime: Node (argv[0]) running the child's entry (its last
 * argument). Read from the command line, not /proc/<pid>/comm: Node 24 names its main thread
 * `MainThread` and Node 26 `node-MainThread`, and the launchers before it (setpriv, unshare, sh)
 * carry the same entry in their arguments but not Node as argv[0].
 */
const isRuntime = (pid: number, entry: string) => {
  try {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return path.basename(argv[0] ?? '') === 'node' && argv[argv.length - 1] === entry;
  } catch {
    return false;
  }
};

it('once a child has exited, whatever of its tree still holds the channel reads EOF', async () => {
  const gone = path.join(tempDir('orphan'), 'gone');
  const options = gradeOptions();
  // The contained child as always; once it has ended, the wrapper leaves a reader of fd 3 (the
  // channel) in the background and exits: the grader sees its child exit, the reader lives on.
  const wrapped = {
    ...options.child,
    file: '/bin/sh',
    args: ['-c', `"$0" "$@"; (cat <&3 >/dev/null; echo eof > '${gone}') & exit 0`, options.child.file, ...options.child.args],
  };
  const session = await sessionFor(path.join(PROJECT_ROOT, 'reference'), { child: wrapped });
  try {
    const fixture = options.fixtures.get(options.cases.find((c) => c.fn === 'softmax')!.fixture)!;
    expect((await session.call('softmax', { params: fixture.params, inputs: fixture.inputs })).kind).toBe('value');
    // The contained runtime ends (as if killed) without the grader asking: the wrapper goes on.
    const entry = options.child.args[options.child.args.length - 1];
    const runtime = processTree(process.pid).filter((pid) => pid !== process.pid && isRuntime(pid, entry));
    expect(runtime.length).toBeGreaterThan(0);
    for (const pid of runtime) process.kill(pid, 'SIGKILL');
    // Waits on the event, not on a time: the reader writes the file when it reads EOF.
    for (let waited = 0; !fs.existsSync(gone); waited += 50) {
      if (waited > 60_000) throw new Error('the channel stayed open after the child exited: the reader never read EOF');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(fs.readFileSync(gone, 'utf8').trim()).toBe('eof');
  } finally {
    session.kill();
  }
});
