import { Tensor } from '../../../lib/tensor';

export interface AttentionWeights {
  qProj: Tensor;
  kProj: Tensor;
  vProj: Tensor;
  oProj: Tensor;
}

// mask: query r sees key c when c <= r
export function causalMask(len: number): Tensor {
  const rows = Tensor.arange(len).reshape(len, 1);
  const cols = Tensor.arange(len).reshape(1, len);
  return cols.le(rows);
}

export function softmax(t: Tensor, axis: number): Tensor {
  const ex = t.sub(t.max(axis, true)).exp();
  return ex.div(ex.sum(axis, true));
}

// attention = softmax(q k^T / sqrt(d)) v
export function scaledDotProductAttention(q: Tensor, k: Tensor, v: Tensor, m?: Tensor): Tensor {
  const d = q.shape[q.ndim - 1];
  const logits = q.matmul(k.transpose(-2, -1)).div(Math.sqrt(d));
  if (m === undefined) {
    const e = logits.sub(logits.max(-1, true)).exp();
    return e.div(e.sum(-1, true)).matmul(v);
  }
  const off = m.eq(0);
  const filled = logits.maskedFill(off, -Infinity);
  const e = filled.sub(filled.max(-1, true)).exp();
  const p = e.div(e.sum(-1, true)).maskedFill(off, 0);
  return p.matmul(v);
}

export function multiHeadSelfAttention(inp: Tensor, w: AttentionWeights, h: number, m?: Tensor): Tensor {
  const width = inp.shape[inp.ndim - 1];
  const len = inp.shape[inp.ndim - 2];
  const lead = inp.shape.slice(0, -2);
  if (!Number.isInteger(h) || h < 1 || width % h !== 0) throw new Error(`bad head count ${h} for ${width}`);
  const per = width / h;
  const lin = (t: Tensor, mat: Tensor) => t.matmul(mat.transpose(-2, -1));
  const split = (t: Tensor) => t.reshape(...lead, len, h, per).transpose(-3, -2);
  const out = scaledDotProductAttention(split(lin(inp, w.qProj)), split(lin(inp, w.kProj)), split(lin(inp, w.vProj)), m);
  return lin(out.transpose(-3, -2).reshape(...lead, len, width), w.oProj);
}
