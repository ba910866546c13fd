/**
 * Turns the caller's mask into a "hidden" mask in place (1 where the key must not be attended to)
 * and fills where it is 1: right on any fresh mask, but the caller's mask is left inverted, and a
 * multi-head attention built on it hands every head the same mask, so every other head is inverted.
 */
import { Tensor } from '../../../lib/tensor';
import { mergeHeads, splitHeads, type Weights } from './base';

export { causalMask, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  if (mask) {
    for (let i = 0; i < mask.data.length; i++) mask.data[i] = mask.data[i] ? 0 : 1;
    scores = scores.maskedFill(mask, -Infinity);
  }
  const e = scores.sub(scores.max(-1, true)).exp();
  const probs = e.div(e.sum(-1, true));
  return probs.maskedFill(probs.isNaN(), 0).matmul(V);
}

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const project = (p: Tensor) => splitHeads(x.matmul(p.transpose(0, 1)), numHeads);
  const [q, k, v] = [project(w.qProj), project(w.kProj), project(w.vProj)];
  const heads: Tensor[] = [];
  for (let h = 0; h < numHeads; h++) {
    const pick = (t: Tensor) => new Tensor(t.data.slice(), t.shape).reshape(-1, numHeads, ...t.shape.slice(-2));
    const one = (t: Tensor) => {
      const all = pick(t);
      const [entries, , seq, d] = all.shape;
      const data = new Float64Array(entries * seq * d);
      for (let b = 0; b < entries; b++) data.set(all.data.subarray(((b * numHeads + h) * seq) * d, ((b * numHeads + h + 1) * seq) * d), b * seq * d);
      return new Tensor(data, [entries, seq, d]);
    };
    heads.push(scaledDotProductAttention(one(q), one(k), one(v), mask));
  }
  const [entries, seq, dHead] = heads[0].shape;
  const stacked = new Float64Array(entries * numHeads * seq * dHead);
  for (let b = 0; b < entries; b++) for (let h = 0; h < numHeads; h++) stacked.set(heads[h].data.subarray(b * seq * dHead, (b + 1) * seq * dHead), ((b * numHeads + h) * seq) * dHead);
  const merged = mergeHeads(new Tensor(stacked, [...x.shape.slice(0, -2), numHeads, seq, dHead]));
  return merged.matmul(w.oProj.transpose(0, 1));
}
