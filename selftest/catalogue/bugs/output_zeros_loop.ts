/** Allocates the output and writes each result into a copy of the row, never into the output itself. */
import { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const [nQ, dV] = [Q.shape[Q.ndim - 2], V.shape[V.ndim - 1]];
  const out = Tensor.zeros([...Q.shape.slice(0, -2), nQ, dV], 'float64');
  let scores = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const probs = softmax(scores, -1);
  const result = probs.maskedFill(probs.isNaN(), 0).matmul(V);
  for (let r = 0; r * dV < out.size; r++) {
    const row = Array.from(out.data.subarray(r * dV, (r + 1) * dV));
    for (let c = 0; c < dV; c++) row[c] = result.data[r * dV + c];
  }
  return out;
}
