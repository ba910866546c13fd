/**
 * The classes of domain.ts that one call reaches, computed from its inputs (never declared by
 * hand, so a case cannot claim a class it does not reach). Whether a call repeats an earlier one
 * depends on the order of the calls: coverage.ts.
 */
import { broadcastOffset } from '../../lib/compare';
import type { Tensor } from '../../lib/tensor';
import type { GradedFunction } from '../../lib/assignment/cases';
import type { CaseData } from '../../reference/fixtures/caseBuild';
import { classId, softmaxDimClass } from './domain';

const SMALL = 0.01;
const LARGE = 500;

function maxAbs(data: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < data.length; i++) m = Math.max(m, Math.abs(data[i]));
  return m;
}

function dtypeClasses(tensors: readonly (Tensor | undefined)[]): string[] {
  const floats = tensors.filter((t): t is Tensor => t !== undefined && t.dtype !== 'bool');
  if (floats.length && floats.every((t) => t.dtype === 'float32')) return ['float32'];
  if (floats.length && floats.every((t) => t.dtype === 'float64')) return ['float64'];
  return [];
}

function softmaxClasses({ inputs: { x }, params: { dim } }: CaseData): string[] {
  const ndim = x.ndim;
  const axis = dim < 0 ? dim + ndim : dim;
  const out = [softmaxDimClass(dim, ndim).replace(/^softmax: /, ''), ...dtypeClasses([x])];
  if (x.shape[axis] === 1) out.push('size-1 dim');
  const big = maxAbs(x.data);
  if (big <= SMALL) out.push('small');
  if (big >= LARGE) out.push('large');
  // The maxima of the slices along dim: far apart when one slice's sits 200 below another's.
  const n = x.shape[axis];
  const inner = x.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const maxima: number[] = [];
  for (let o = 0; o < x.size / (n * inner); o++) {
    for (let i = 0; i < inner; i++) {
      let m = -Infinity;
      for (let j = 0; j < n; j++) m = Math.max(m, x.data[(o * n + j) * inner + i]);
      maxima.push(m);
    }
  }
  if (Math.max(...maxima) - Math.min(...maxima) >= 200) out.push('slices apart');
  return out;
}

function maskClasses(mask: Tensor | undefined, batch: readonly number[], queries: number, keys: number): string[] {
  if (!mask) return ['no mask'];
  const target = [...batch, queries, keys];
  if (mask.shape.join() === target.join()) return ['mask full'];
  const out: string[] = [];
  if (mask.ndim === 1) out.push('mask 1-D');
  if (mask.ndim === 2 && batch.length > 0) out.push('mask 2-D on batch');
  const own = mask.shape.slice(0, -2);
  if (own.length > 0 && own.length < batch.length) out.push('mask fewer batch dims');
  // Which of the mask's own batch dims broadcast (size 1 against a larger dim of Q).
  const aligned = batch.slice(batch.length - own.length);
  const stretched = own.map((d, i) => d === 1 && aligned[i] > 1);
  if (stretched.length && stretched.every(Boolean)) out.push('mask batch dims 1');
  if (stretched.some((s) => !s)) {
    if (stretched[0]) out.push('mask first batch dim 1');
    if (stretched.length > 1 && stretched[stretched.length - 1]) out.push('mask last batch dim 1');
    if (stretched.slice(1, -1).some(Boolean)) out.push('mask middle batch dim 1');
  }
  if (mask.ndim >= 2 && mask.shape[mask.ndim - 2] === 1 && queries > 1) out.push('mask query dim 1');
  if (mask.shape[mask.ndim - 1] === 1 && keys > 1) out.push('mask key dim 1');
  return out;
}

/** Each query's largest allowed score, NaN where every key is masked. */
function rowMaxima(q: Tensor, k: Tensor, mask: Tensor | undefined): number[] {
  const batch = q.shape.slice(0, -2);
  const [queries, dK] = q.shape.slice(-2);
  const keys = k.shape[k.ndim - 2];
  const scale = 1 / Math.sqrt(dK);
  const maxima: number[] = [];
  const index = [...batch.map(() => 0), 0, 0];
  for (let b = 0; b < q.size / (queries * dK); b++) {
    for (let d = batch.length - 1, rest = b; d >= 0; d--) [index[d], rest] = [rest % batch[d], Math.floor(rest / batch[d])];
    for (let i = 0; i < queries; i++) {
      let m = NaN;
      for (let j = 0; j < keys; j++) {
        [index[batch.length], index[batch.length + 1]] = [i, j];
        if (mask && mask.data[broadcastOffset(mask.shape, index)] === 0) continue;
        let dot = 0;
        for (let c = 0; c < dK; c++) dot += q.data[(b * queries + i) * dK + c] * k.data[(b * keys + j) * dK + c];
        m = Number.isNaN(m) ? dot * scale : Math.max(m, dot * scale);
      }
      maxima.push(m);
    }
  }
  return maxima;
}

function attentionClasses({ inputs: { q, k, v, mask } }: CaseData): string[] {
  const batch = q.shape.slice(0, -2);
  const [queries, dK] = q.shape.slice(-2);
  const [keys, dV] = v.shape.slice(-2);
  const out = [`${batch.length} batch dims`, ...maskClasses(mask, batch, queries, keys), ...dtypeClasses([q, k, v])];
  if (queries !== keys) out.push('n_q ≠ n_k');
  if (dK !== dV) out.push('d_k ≠ d_v');
  const maxima = rowMaxima(q, k, mask);
  const live = maxima.filter((m) => !Number.isNaN(m));
  if (live.length < maxima.length) out.push('fully masked rows');
  // Every score, allowed or not, is what a softmax written without the max subtracted meets.
  const unmasked = rowMaxima(q.mul(-1), k, undefined).concat(rowMaxima(q, k, undefined));
  const big = Math.max(...unmasked.map(Math.abs));
  if (big <= SMALL) out.push('small');
  if (big >= LARGE) out.push('large');
  if (live.length && Math.max(...live) - Math.min(...live) >= LARGE) out.push('rows apart');
  return out;
}

function isCausal(mask: Tensor): boolean {
  const [n, m] = mask.shape;
  if (mask.ndim !== 2 || n !== m) return false;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if ((mask.data[i * n + j] !== 0) !== (j <= i)) return false;
  return true;
}

function multiHeadClasses({ inputs, params: { numHeads } }: CaseData): string[] {
  const { x, mask } = inputs;
  const dModel = x.shape[x.ndim - 1];
  const out = [`${x.ndim - 2} batch dims`, ...dtypeClasses([x, inputs.q_proj, inputs.k_proj, inputs.v_proj, inputs.o_proj])];
  out.push(!mask ? 'no mask' : isCausal(mask) ? 'causal mask' : 'other mask');
  if (numHeads === dModel) out.push('d_head 1');
  if (numHeads === 1) out.push('1 head');
  else if (numHeads === 2) out.push('2 heads');
  else if (numHeads < dModel) out.push('3 or more heads');
  return out;
}

function causalClasses({ params: { seqLen } }: CaseData): string[] {
  if (seqLen <= 2) return [`length ${seqLen}`];
  return [seqLen <= 16 ? 'length 3 to 16' : 'length 17 or more'];
}

const CLASSIFY: Record<GradedFunction, (data: CaseData) => string[]> = {
  softmax: softmaxClasses,
  scaled_dot_product_attention: attentionClasses,
  causal_mask: causalClasses,
  multihead_self_attention: multiHeadClasses,
};

/** The classes (ids of domain.ts) one call of `fn` on `data` reaches, but for a repeat (coverage.ts); none for a function whose domain domain.ts does not state (an optional part's, tests/parts.ts). */
export function classesOf(fn: GradedFunction, data: CaseData): string[] {
  return (CLASSIFY[fn]?.(data) ?? []).map((id) => classId(fn, id));
}
