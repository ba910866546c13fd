/**
 * A correct solution written with tensor methods, like seed 001's notebook (−∞ masking, then NaN
 * rows zeroed). Every mutant in this folder re-exports it and replaces one function, so a bug
 * in one function cannot leak into the others' tests.
 */
import { Tensor } from '../../../lib/tensor';

export function softmax(x: Tensor, dim: number): Tensor {
  const e = x.sub(x.max(dim, true)).exp();
  return e.div(e.sum(dim, true));
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1)).mul(Q.shape[Q.ndim - 1] ** -0.5);
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const probs = softmax(scores, -1);
  return probs.maskedFill(probs.isNaN(), 0).matmul(V);
}

export function causalMask(seqLen: number): Tensor {
  return Tensor.arange(seqLen).unsqueeze(1).ge(Tensor.arange(seqLen).unsqueeze(0));
}

export interface Weights {
  qProj: Tensor;
  kProj: Tensor;
  vProj: Tensor;
  oProj: Tensor;
}

export function splitHeads(t: Tensor, numHeads: number): Tensor {
  const [seq, dModel] = t.shape.slice(-2);
  return t.reshape(...t.shape.slice(0, -2), seq, numHeads, dModel / numHeads).transpose(-3, -2);
}

export function mergeHeads(t: Tensor): Tensor {
  const [numHeads, seq, dHead] = t.shape.slice(-3);
  return t.transpose(-3, -2).reshape(...t.shape.slice(0, -3), seq, numHeads * dHead);
}

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const q = splitHeads(x.matmul(w.qProj.transpose(0, 1)), numHeads);
  const k = splitHeads(x.matmul(w.kProj.transpose(0, 1)), numHeads);
  const v = splitHeads(x.matmul(w.vProj.transpose(0, 1)), numHeads);
  return mergeHeads(scaledDotProductAttention(q, k, v, mask)).matmul(w.oProj.transpose(0, 1));
}

/** The optional parts' functions (tests/parts.ts), written with the same methods: what the parts' mutants replace one of. */
export interface AttentionOptions {
  mask?: Tensor;
  scale?: boolean;
  returnWeights?: boolean;
}

export function attention(Q: Tensor, K: Tensor, V: Tensor, options: AttentionOptions = {}): { output: Tensor; weights?: Tensor } {
  let scores = Q.matmul(K.transpose(-2, -1));
  if (options.scale !== false) scores = scores.mul(Q.shape[Q.ndim - 1] ** -0.5);
  if (options.mask) scores = scores.maskedFill(options.mask.logicalNot(), -Infinity);
  const probs = softmax(scores, -1);
  const weights = probs.maskedFill(probs.isNaN(), 0);
  const output = weights.matmul(V);
  return options.returnWeights === false ? { output } : { output, weights };
}

export interface BiasedWeights {
  qProj: Tensor;
  qBias: Tensor;
  kProj: Tensor;
  kBias: Tensor;
  vProj: Tensor;
  vBias: Tensor;
  oProj: Tensor;
  oBias: Tensor;
}

/** nn.Linear with its bias: x Wᵀ + b. */
export const linear = (x: Tensor, w: Tensor, b: Tensor): Tensor => x.matmul(w.transpose(0, 1)).add(b);

export function singleHeadAttention(x: Tensor, w: Omit<BiasedWeights, 'oProj' | 'oBias'>, options: { scale?: boolean; mask?: Tensor } = {}): Tensor {
  const [q, k, v] = [linear(x, w.qProj, w.qBias), linear(x, w.kProj, w.kBias), linear(x, w.vProj, w.vBias)];
  return attention(q, k, v, { mask: options.mask, scale: options.scale }).output;
}

export function multiHeadAttention(x: Tensor, w: BiasedWeights, numHeads: number, options: { mask?: Tensor } = {}): { output: Tensor; weights: Tensor } {
  const [q, k, v] = [linear(x, w.qProj, w.qBias), linear(x, w.kProj, w.kBias), linear(x, w.vProj, w.vBias)].map((t) => splitHeads(t, numHeads));
  const heads = attention(q, k, v, { mask: options.mask });
  return { output: linear(mergeHeads(heads.output), w.oProj, w.oBias), weights: heads.weights! };
}
