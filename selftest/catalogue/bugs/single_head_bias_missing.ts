/** Problem 2's projections as nn.Linear(bias=False): the biases never added. */
import { Tensor } from '../../../lib/tensor';
import { attention } from './base';

export { attention, causalMask, multiHeadAttention, multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function singleHeadAttention(x: Tensor, w: { qProj: Tensor; kProj: Tensor; vProj: Tensor }, options: { scale?: boolean; mask?: Tensor } = {}): Tensor {
  const project = (W: Tensor) => x.matmul(W.transpose(-2, -1));
  return attention(project(w.qProj), project(w.kProj), project(w.vProj), options).output;
}
