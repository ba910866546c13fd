/**
 * causalMask answers wrongly, and first sends answers of the right shape for every request id the
 * grader may use next (a late message from a killed child, or one meant for a later case, must
 * never be read as the answer of the case that is pending). The answers are spread out in time, so
 * that some arrive after the grader has sent its next request: with counted ids, the one that
 * guessed it would be taken as that case's answer. The other functions are correct.
 */
import { frame, writeChannel } from './kit';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(seqLen: number): never {
  for (let id = 0; id < 16; id++) {
    const until = Date.now() + 15;
    while (Date.now() < until); // plain waiting: the attack may not import timers
    const ones = new Uint8Array(seqLen * seqLen).fill(1);
    const data = { $typed: 'u8', at: 0, length: ones.length };
    writeChannel(frame({ type: 'result', id, output: '', ok: true, value: { shape: [seqLen, seqLen], data } }, ones));
  }
  throw new Error('sent answers for requests that were not pending');
}
