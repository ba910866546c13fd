/** Attends head by head and passes the mask to the first head only (`h === 0 ? mask : undefined`, meant for a padding mask). */
import { Tensor } from '../../../lib/tensor';
import { scaledDotProductAttention, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const [seq, dModel] = x.shape.slice(-2);
  const lead = x.shape.slice(0, -2);
  const dHead = dModel / numHeads;
  const split = (p: Tensor) => x.matmul(p.transpose(0, 1)).reshape(...lead, seq, numHeads, dHead).transpose(-3, -2);
  const [q, k, v] = [split(w.qProj), split(w.kProj), split(w.vProj)];
  const outs: Tensor[] = [];
  for (let h = 0; h < numHeads; h++) outs.push(scaledDotProductAttention(pick(q, h), pick(k, h), pick(v, h), h === 0 ? mask : undefined));
  const merged = concatLast(outs);
  return merged.matmul(w.oProj.transpose(0, 1));
}

/** Head h of [...lead, numHeads, seq, dHead], as [...lead, seq, dHead]. */
function pick(t: Tensor, h: number): Tensor {
  const [numHeads, seq, dHead] = t.shape.slice(-3);
  const lead = t.shape.slice(0, -3);
  const entries = t.size / (numHeads * seq * dHead);
  const data = new Float64Array(entries * seq * dHead);
  for (let e = 0; e < entries; e++) data.set(t.data.subarray((e * numHeads + h) * seq * dHead, (e * numHeads + h + 1) * seq * dHead), e * seq * dHead);
  return new Tensor(data, [...lead, seq, dHead]);
}

/** Heads [...lead, seq, dHead] each, side by side along the last dim. */
function concatLast(heads: Tensor[]): Tensor {
  const [seq, dHead] = heads[0].shape.slice(-2);
  const lead = heads[0].shape.slice(0, -2);
  const rows = heads[0].size / dHead;
  const d = dHead * heads.length;
  const data = new Float64Array(rows * d);
  for (let r = 0; r < rows; r++) heads.forEach((t, h) => data.set(t.data.subarray(r * dHead, (r + 1) * dHead), r * d + h * dHead));
  return new Tensor(data, [...lead, seq, d]);
}
