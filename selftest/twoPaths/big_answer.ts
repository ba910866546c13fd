/**
 * Attention that answers with 50 million values (200 MB), more than any right answer by far: a
 * wrong shape, named as one at once in both paths; its values never cross the grader's channel (a
 * 200-million-element answer once took longer than the whole budget, and was refused as an
 * oversized message).
 */
import { Tensor } from '../../lib/tensor';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(): Tensor {
  const size = 50_000_000;
  return new Tensor(new Float32Array(size), [size]);
}
