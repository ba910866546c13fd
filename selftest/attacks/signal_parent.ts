/**
 * causalMask sends its parent every signal that does something to a Node process short of killing
 * it: SIGSTOP (a stopped launcher starts no classmate's child and kills no hung one), SIGUSR1 (opens
 * Node's inspector), SIGINT, SIGTERM, SIGHUP and SIGQUIT (a launcher that died of them would end
 * every child in flight). Its parent is the launcher that starts contained children
 * (lib/sandbox/launcher.ts); in a PID namespace of its own it has none it can name (pid 0).
 * It throws how many it got through.
 */
import { messageOf } from './kit';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

const SIGNALS = ['SIGSTOP', 'SIGUSR1', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;

export function causalMask(): never {
  const parent = process.ppid;
  let through = 0;
  let refused = '';
  if (parent > 1) {
    for (const signal of SIGNALS) {
      try {
        process.kill(parent, signal);
        through++;
      } catch (err) {
        refused = messageOf(err);
      }
    }
    // Left running, so that a containment failure shows in this message rather than as a stalled batch.
    if (through > 0) process.kill(parent, 'SIGCONT');
  }
  throw new Error(`signalled its parent ${through} times${refused ? `, refused with ${refused}` : ''}`);
}
