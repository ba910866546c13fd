/**
 * What a failing scaledDotProductAttentionBackward shows, under the forward pass's rule (backward.ts):
 * the student's function called again on the case, which of dQ, dK and dV is wrong measured; then
 * each cause tried in turn, named only when its counterfactual run answers as that cause and no
 * correct code would (backwardCase.ts: variants whose gradients are known); else what was measured.
 */
import type { GradedCase } from '../../lib/assignment/cases';
import type { Tolerance } from '../../lib/compare';
import type { Outcome } from '../../lib/diagnosis/explain';
import { formatIndex, formatNumber, unravelIndex } from '../../lib/format';
import type { LoadedFixture } from '../../lib/model/fixtures';
import type { ProbeContext } from '../../lib/diagnosis/probe';
import { Tensor } from '../../lib/tensor';
import {
  callBackward, caseOf, entryAlone, fullMask, moreKeys, moreQueries, near, PARTS, valuesShifted, wider, wrongParts, type BackwardCase, type Known, type Part,
} from './backwardCase';

export interface Finding {
  id: string;
  evidence?: string;
}

type Parts = Record<Part, Tensor>;
type Probe = (c: BackwardCase, parts: Parts, wrong: Part[], tol: Tolerance, context: ProbeContext) => Promise<Finding | undefined>;

const list = (parts: readonly string[]) => (parts.length < 2 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`);
const batchCount = (c: BackwardCase) => c.batch.reduce((a, n) => a * n, 1);

/** The constant k with actual ≈ k·expected (least squares, then every value checked), or undefined. */
function factorOf(actual: Tensor, known: Known[Part], tol: Tolerance): number | undefined {
  let [ae, ee] = [0, 0];
  for (let i = 0; i < actual.data.length; i++) [ae, ee] = [ae + actual.data[i] * known.value.data[i], ee + known.value.data[i] ** 2];
  if (ee === 0) return undefined;
  const k = ae / ee;
  return near(actual, known.value.astype('float64').mul(k), tol, known.bound.map((b) => Math.abs(k) * b)) ? k : undefined;
}

const isAbout = (value: number, target: number) => Math.abs(value / target - 1) < 1e-3;

/** Where the mask says no gradient may go: fully masked queries' dQ rows, and dK and dV rows of keys masked for every query of their entry, that are not 0. */
function leaks(c: BackwardCase, parts: Parts): string[] {
  const allowed = fullMask(c).data;
  const found: string[] = [];
  const rowNonZero = (t: Tensor, row: number, width: number) => t.data.subarray(row * width, (row + 1) * width).some((x) => x !== 0);
  for (let b = 0; b < batchCount(c); b++) {
    for (let i = 0; i < c.nQ; i++) {
      const masked = !allowed.subarray((b * c.nQ + i) * c.nK, (b * c.nQ + i + 1) * c.nK).some(Boolean);
      if (masked && rowNonZero(parts.dQ, b * c.nQ + i, c.d)) found.push(`dQ's row for query ${formatIndex(unravelIndex(b * c.nQ + i, [...c.batch, c.nQ]))}, whose keys are all masked`);
    }
    for (let j = 0; j < c.nK; j++) {
      let seen = false;
      for (let i = 0; i < c.nQ; i++) seen ||= allowed[(b * c.nQ + i) * c.nK + j] !== 0;
      const where = formatIndex(unravelIndex(b * c.nK + j, [...c.batch, c.nK]));
      if (!seen && rowNonZero(parts.dK, b * c.nK + j, c.d)) found.push(`dK's row for key ${where}, which no query may see`);
      if (!seen && rowNonZero(parts.dV, b * c.nK + j, c.dV)) found.push(`dV's row for key ${where}`);
    }
  }
  return found;
}

/** The same gradients without the mask, where the mask masks something: the backward pass never reads it. */
const maskIgnored: Probe = async (c, parts, _wrong, tol, context) => {
  if (!c.inputs.mask || fullMask(c).data.every((x) => x !== 0)) return undefined;
  const { mask: _, ...unmasked } = c.inputs;
  const without = await callBackward(context, unmasked);
  if (without.kind !== 'parts' || !PARTS.every((p) => near(without.parts[p], parts[p], tol))) return undefined;
  const seen = leaks(c, parts);
  return { id: 'backward_mask_ignored', evidence: `Without the mask your gradients are the same${seen.length ? `; ${seen[0]}, is not 0` : ''}` };
};

/** dQ or dK √d_k times the expected, and 2√d_k times on the variant with d_k four times larger and the same scores. */
const scaleMissing: Probe = async (c, parts, wrong, tol, context) => {
  const root = Math.sqrt(c.d);
  const off = wrong.filter((p) => p !== 'dV' && isAbout(factorOf(parts[p], c.known[p], tol) ?? 0, root));
  if (off.length === 0 || off.length !== wrong.length) return undefined;
  const wide = wider(c);
  const answer = await callBackward(context, wide.inputs);
  if (answer.kind !== 'parts' || !off.every((p) => isAbout(factorOf(answer.parts[p], wide.known[p], tol) ?? 0, 2 * root))) return undefined;
  const times = off.length === 1 ? 'is' : 'are each';
  return {
    id: 'backward_scale_missing',
    evidence: `${list(off)} ${times} ${formatNumber(root)} = √d_k times the expected, and with d_k made 4 times larger (Q doubled, Q and K padded with zero features: the same scores) ${formatNumber(2 * root)} = 2√d_k times`,
  };
};

/** dQ or dK moving when every row of V moves by one vector, which moves no gradient. */
const correctionMissing: Probe = async (c, parts, wrong, tol, context) => {
  if (wrong.includes('dV')) return undefined;
  const shifted = await callBackward(context, valuesShifted(c));
  if (shifted.kind !== 'parts') return undefined;
  const moved = PARTS.filter((p) => !near(shifted.parts[p], parts[p], tol));
  if (moved.length === 0 || moved.includes('dV')) return undefined;
  return { id: 'backward_softmax_correction', evidence: `With 1 added to every value of V (every row of V moved by the same vector, which moves no gradient), your ${list(moved)} change` };
};

const MATMUL = /matmul: inner dims (\d+) and (\d+) of shapes \[([\d, ]*)\] and \[([\d, ]*)\]/;

/** Which untransposed product a matmul shape error names: a [.., n_q, n_k] tensor times Q (d_k wide: dK) or dOut (d_v wide: dV). */
function untransposedIn(message: string, nQ: number, nK: number, c: BackwardCase): Part[] {
  const found = MATMUL.exec(message);
  if (!found) return [];
  const [a, b] = [found[3], found[4]].map((s) => s.split(/,\s*/).map(Number));
  const [rows, cols] = a.slice(-2);
  const [bRows, width] = b.slice(-2);
  if (rows !== nQ || cols !== nK || bRows !== nQ) return [];
  return [...(width === c.d ? ['dK' as const] : []), ...(width === c.dV ? ['dV' as const] : [])];
}

const MISTAKE_OF: Partial<Record<Part, string>> = { dK: 'backward_dk_untransposed', dV: 'backward_dv_untransposed' };

/**
 * With as many keys as queries, dSᵀ Q and dS Q have the same shape, as do Pᵀ dOut and P dOut: only
 * one of dK and dV is wrong. With a query added that sees no key (n_q ≠ n_k, the same gradients),
 * the product throws a matmul shape error that names a [.., n_q, n_k] tensor times Q or dOut.
 */
const untransposedSquare: Probe = async (c, _parts, wrong, _tol, context) => {
  if (c.nQ !== c.nK || wrong.length !== 1 || wrong[0] === 'dQ') return undefined;
  const variant = moreQueries(c, 1);
  const answer = await callBackward(context, variant.inputs);
  if (answer.kind !== 'threw' || !untransposedIn(answer.message, c.nQ + 1, c.nK, c).includes(wrong[0])) return undefined;
  return { id: MISTAKE_OF[wrong[0]]!, evidence: `Only your ${wrong[0]} is wrong, and with a query added that sees no key (n_q ≠ n_k) your function throws: ${answer.message.slice(0, 160)}` };
};

/** A shape error naming the untransposed product, confirmed on a square variant with the same gradients: there only that part is wrong. */
async function untransposedFromError(c: BackwardCase, message: string, tol: Tolerance, context: ProbeContext): Promise<Finding | undefined> {
  const named = untransposedIn(message, c.nQ, c.nK, c);
  if (named.length === 0 || c.nQ === c.nK) return undefined;
  const variant = c.nQ < c.nK ? moreQueries(c, c.nK - c.nQ) : moreKeys(c, c.nQ - c.nK);
  const answer = await callBackward(context, variant.inputs);
  if (answer.kind !== 'parts') return undefined;
  const wrong = wrongParts(answer.parts, variant.known, tol);
  if (wrong.length !== 1 || !named.includes(wrong[0])) return undefined;
  const added = c.nQ < c.nK ? `${c.nK - c.nQ} quer${c.nK - c.nQ === 1 ? 'y' : 'ies'} added that see no key` : `${c.nQ - c.nK} key${c.nQ - c.nK === 1 ? '' : 's'} added that no query may see`;
  return { id: MISTAKE_OF[wrong[0]]!, evidence: `It throws with n_q = ${c.nQ} ≠ n_k = ${c.nK}; with ${added} (n_q = n_k, the same gradients), it returns, and only its ${wrong[0]} is wrong` };
}

/** A wrong part whose batch entries are sums of the expected ones (running, or all of them); confirmed when that entry alone gets the right gradients. */
const batchSummed: Probe = async (c, parts, wrong, tol, context) => {
  const count = batchCount(c);
  if (c.batch.length === 0 || count < 2) return undefined;
  const entry = (t: Tensor, b: number) => {
    const per = t.size / count;
    return new Tensor(Float64Array.from(t.data.subarray(b * per, (b + 1) * per)), [per]);
  };
  for (const p of wrong) {
    const expected = Array.from({ length: count }, (_, b) => entry(c.known[p].value, b));
    for (let b = 1; b < count; b++) {
      const running = expected.slice(0, b + 1).reduce((s, e) => s.add(e));
      if (!near(entry(parts[p], b), running, tol)) continue;
      const alone = entryAlone(c, b);
      const answer = await callBackward(context, alone.inputs);
      if (answer.kind !== 'parts' || wrongParts(answer.parts, alone.known, tol).length > 0) return undefined;
      const at = (n: number) => formatIndex(unravelIndex(n, c.batch));
      return { id: 'backward_batch_summed', evidence: `Your ${p}'s batch entry ${at(b)} is the sum of the expected ${p} of entries ${at(0)} to ${at(b)}, and entry ${at(b)} given alone gets every gradient right` };
    }
  }
  return undefined;
};

/** What was measured, when no cause is confirmed: a part off by a constant, or which parts are wrong and which right. */
function measured(c: BackwardCase, parts: Parts, wrong: Part[], tol: Tolerance): Finding[] {
  if (wrong.length === 1) {
    const k = factorOf(parts[wrong[0]], c.known[wrong[0]], tol);
    if (k !== undefined) return [{ id: 'backward_part_scaled', evidence: `Your ${wrong[0]} is ${formatNumber(k)} times the expected one` }];
  }
  const right = PARTS.filter((p) => !wrong.includes(p));
  if (right.length === 0) return [];
  return [{ id: 'backward_parts_wrong', evidence: `Your ${list(wrong)} ${wrong.length === 1 ? 'is' : 'are'} wrong, your ${list(right)} right` }];
}

export async function attentionBackwardFindings(graded: GradedCase, fixture: LoadedFixture, outcome: Outcome, context: ProbeContext): Promise<Finding[]> {
  const c = caseOf(fixture);
  const tol = graded.tolerance;
  if (outcome.kind !== 'output') {
    const found = outcome.kind === 'threw' && outcome.name === 'ShapeError' ? await untransposedFromError(c, outcome.message, tol, context) : undefined;
    return found ? [found] : [];
  }
  const answer = await callBackward(context, c.inputs);
  if (answer.kind !== 'parts') return [];
  const wrong = wrongParts(answer.parts, c.known, tol);
  if (wrong.length === 0) return [];
  for (const probe of [maskIgnored, scaleMissing, correctionMissing, untransposedSquare, batchSummed]) {
    const found = await probe(c, answer.parts, wrong, tol, context);
    if (found) return [found];
  }
  return measured(c, answer.parts, wrong, tol);
}
