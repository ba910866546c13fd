/**
 * causalMask writes bytes that are not a frame to the grader's channel: Node's own IPC messages
 * (NODE_HANDLE_ACK, which crashed a parent that used Node's IPC channel) and random bytes. The
 * grader must survive, fail causalMask's tests, and keep the other functions' points.
 */
import { messageOf, writeChannel } from './kit';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(): never {
  const junk = new Uint8Array(4096);
  for (let i = 0; i < junk.length; i++) junk[i] = (i * 7919 + 13) & 0xff;
  try {
    writeChannel(new TextEncoder().encode('{"cmd":"NODE_HANDLE_ACK"}\n{"cmd":"NODE_HANDLE","type":"net.Native"}\n'));
    writeChannel(junk);
  } catch (err) {
    throw new Error(`could not write to the channel: ${messageOf(err)}`);
  }
  for (const until = Date.now() + 500; Date.now() < until; );
  throw new Error('wrote junk to the grader and lived');
}
