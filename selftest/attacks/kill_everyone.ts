/**
 * causalMask sends SIGKILL to every process it may signal (kill(-1)) for 0.3 s, then throws:
 * as the unprivileged user every child shares, this killed the other students' children. Each
 * child must live in its own PID namespace: classmates keep their points, and so do this
 * submission's other functions. (The self-test grades batches in a PID namespace of its own, so
 * a failure of containment reaches nothing else on the machine.)
 */
import { messageOf } from './kit';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(): never {
  let sent = 0;
  let refused = '';
  for (const until = Date.now() + 300; Date.now() < until; ) {
    try {
      process.kill(-1, 'SIGKILL');
      sent++;
    } catch (err) {
      refused = messageOf(err);
    }
  }
  throw new Error(`kill(-1) succeeded ${sent} times${refused ? `, refused with ${refused}` : ''}`);
}
