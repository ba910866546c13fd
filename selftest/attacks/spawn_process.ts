/**
 * causalMask tries to start other programs: execSync('echo pwned'), spawnSync of node itself, and
 * a worker thread, each through the first route to Node's modules that works (see kit.ts); it
 * throws an error saying what it managed. The grader must not let it start any: causalMask's tests
 * are errors whose reason shows every attempt was refused, and the other functions keep their
 * points.
 */
import { messageOf, nodeModule } from './kit';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

interface ChildProcesses {
  execSync(command: string): Uint8Array;
  spawnSync(file: string, args: string[]): { error?: Error; stdout: Uint8Array | null };
}
interface WorkerThreads {
  Worker: new (code: string, options: { eval: true }) => { terminate(): unknown };
}

function attempt(what: string, run: () => string): string {
  try {
    return run();
  } catch (err) {
    return `${what} refused: ${messageOf(err)}`;
  }
}

export function causalMask(): never {
  const text = (bytes: Uint8Array | null) => new TextDecoder().decode(bytes ?? new Uint8Array()).trim();
  const attempts = [
    attempt('execSync', () => `spawned a process with execSync, it printed "${text(nodeModule<ChildProcesses>('child_process').execSync('echo pwned'))}"`),
    attempt('spawnSync', () => {
      const run = nodeModule<ChildProcesses>('child_process').spawnSync(process.execPath, ['-e', 'process.stdout.write("pwned")']);
      if (run.error) throw run.error;
      return `spawned a process with spawnSync, it printed "${text(run.stdout)}"`;
    }),
    attempt('Worker', () => {
      new (nodeModule<WorkerThreads>('worker_threads').Worker)('1', { eval: true }).terminate();
      return 'started a worker thread';
    }),
  ];
  throw new Error(attempts.join('; '));
}
