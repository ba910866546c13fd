/**
 * Two ways past the memory cap, each in one function, the others correct: attention asks for a
 * 3.2 GB scratch array at once, causalMask keeps 64 MiB arrays without end. Both are typed arrays,
 * which the V8 heap limit does not count: the grader's child meets its cap on its address space,
 * npm test its cap on this thread's buffers (lib/grading/bufferCap.ts), and neither touches the
 * memory it asks for (one element a chunk), so the test costs the machine next to nothing.
 */
import type { Tensor } from '../../../lib/tensor';
import { causalMask as correctMask, scaledDotProductAttention as correct } from './base';

export { multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const scratch = new Float64Array(400_000_000);
  scratch[0] = Q.shape.length;
  return correct(Q, K, V, mask);
}

export function causalMask(seqLen: number): Tensor {
  const kept: Float64Array[] = [];
  for (let i = 0; i < 256; i++) {
    const chunk = new Float64Array(8 * 1024 * 1024);
    chunk[0] = seqLen;
    kept.push(chunk);
  }
  return correctMask(seqLen + kept.length - 256);
}
