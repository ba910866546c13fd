/** softmaxBackward in loops over the last dim, whatever `dim` says (right for dim -1 only). */
import { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention, scaledDotProductAttentionBackward, softmax } from './backward_loops';

const f = Math.fround;

export function softmaxBackward(y: Tensor, dy: Tensor, _dim: number): Tensor {
  const n = y.shape[y.ndim - 1];
  const out = new Float32Array(y.size);
  for (let row = 0; row < y.size / n; row++) {
    let dot = 0;
    for (let j = 0; j < n; j++) dot = f(dot + f(y.data[row * n + j] * dy.data[row * n + j]));
    for (let j = 0; j < n; j++) out[row * n + j] = f(y.data[row * n + j] * f(dy.data[row * n + j] - dot));
  }
  return new Tensor(out, y.shape);
}
