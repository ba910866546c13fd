/**
 * The weights a submission's attention gives V's rows, read back by probing: attention is W·V with
 * W its probabilities, so V = identity returns W. The identity comes in blocks of V's own shape and
 * dtype (⌈n_k / d_v⌉ calls), so code that reads d_v (a scale by √d_v) meets the case's d_v.
 * Whether the output really is W·V for the case's V is a premise (attentionPremises.ts), checked
 * before anything read from W is said.
 */
import { Tensor } from '../../lib/tensor';
import { caseOf, identityBlock } from './attentionCase';
import type { Probe } from '../../lib/diagnosis/probe';

export const cut = (text: string) => (text.length > 300 ? `${text.slice(0, 299)}…` : text);

/**
 * The student's attention probabilities [...batch, queries, keys]: their function's outputs with V
 * = identity blocks (Q, K and the mask of the case), NaN kept; a sentence when it gave none.
 */
export async function probeProbabilities(probe: Probe, inputs: Record<string, Tensor>): Promise<Tensor | string> {
  const c = caseOf(inputs);
  const { batches, queries, keys } = c.grid;
  const want = [...c.batch, queries];
  const p = new Float64Array(batches * queries * keys);
  for (let block = 0; block * c.dV < keys; block++) {
    const answer = await probe('scaled_dot_product_attention', { params: {}, inputs: { q: c.q, k: c.k, v: identityBlock(c, block), ...(c.mask && { mask: c.mask }) } });
    if (answer.kind === 'threw') return `with V = identity the function threw ${cut(`${answer.name}: ${answer.message}`)}`;
    if (answer.kind === 'none') return `with V = identity ${answer.why}`;
    const out = answer.output;
    if (out.ndim !== want.length + 1 || want.some((n, i) => out.shape[i] !== n) || out.shape[out.ndim - 1] !== c.dV) {
      return `with V = identity the output should have shape [${[...want, c.dV].join(', ')}], but it had shape [${out.shape.join(', ')}]`;
    }
    for (let row = 0; row < batches * queries; row++) {
      for (let col = 0; col < c.dV && block * c.dV + col < keys; col++) p[row * keys + block * c.dV + col] = out.data[row * c.dV + col];
    }
  }
  return new Tensor(p, [...want, keys]);
}

/** W·V per batch entry: [...batch, queries, d_v] from W [...batch, queries, keys] and V [...batch, keys, d_v]. */
export function weightsTimesValues(w: Tensor, v: Tensor): Float64Array {
  const [queries, keys] = w.shape.slice(-2);
  const dV = v.shape[v.ndim - 1];
  const batches = w.size / (queries * keys);
  const out = new Float64Array(batches * queries * dV);
  for (let b = 0; b < batches; b++) {
    for (let i = 0; i < queries; i++) {
      for (let j = 0; j < keys; j++) {
        const weight = w.data[(b * queries + i) * keys + j];
        for (let c = 0; c < dV; c++) out[(b * queries + i) * dV + c] += weight * v.data[(b * keys + j) * dV + c];
      }
    }
  }
  return out;
}
