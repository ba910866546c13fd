/**
 * causalMask never returns (and ignores SIGTERM and the grader going away); the other functions
 * are correct. The grader must time out causalMask's tests and still give the others their points.
 */
export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

process.on('SIGTERM', () => undefined);
process.removeAllListeners('disconnect');

export function causalMask(seqLen: number): never {
  for (;;) if (seqLen < 0) throw new Error('unreachable');
}
