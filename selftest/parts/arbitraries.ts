/**
 * fast-check draws over the whole domain the contract gives the optional parts' functions
 * (shared/CONTRACT.md, Optional parts): zero to two batch dims shared by Q, K and V; a mask of
 * every broadcast shape (fewer dims than the scores, size-1 dims, fully masked queries) or none;
 * `scale` and `returnWeights` given true, false or left out, and the options left out altogether;
 * float32 or float64 inputs; single-head attention scaled or not, with or without a mask; multi-head
 * attention of any number of heads, causal, other or no mask. Values stay of ordinary size, as the
 * core part's draws (../domain/arbitraries.ts) keep them where float32 code meets the tolerance.
 */
import fc from 'fast-check';
import { gaussian } from '../../lib/random';
import { Tensor } from '../../lib/tensor';
import type { CaseData } from '../../reference/fixtures/caseBuild';

const dims = (min: number, max: number) => fc.array(fc.integer({ min: 1, max: 3 }), { minLength: min, maxLength: max });
const flag = fc.constantFrom<boolean | undefined>(undefined, true, false);
const dtype = fc.constantFrom('float32' as const, 'float64' as const);
const seed = fc.nat({ max: 2 ** 31 - 1 });

type MaskShape = 'none' | 'full' | '2d' | 'batch_one' | 'key_one' | 'fully_masked';

export interface AttentionPlan { batch: number[]; nQ: number; nK: number; dK: number; dV: number; mask: MaskShape; scale?: boolean; returnWeights?: boolean; dtype: 'float32' | 'float64'; seed: number }
export interface SingleHeadPlan { batch: number[]; seq: number; d: number; scale?: boolean; mask: 'none' | 'causal' | 'other'; dtype: 'float32' | 'float64'; seed: number }
export interface MultiHeadPlan { batch: number[]; seq: number; numHeads: number; dHead: number; mask: 'none' | 'causal' | 'other'; dtype: 'float32' | 'float64'; seed: number }

export const ATTENTION: fc.Arbitrary<AttentionPlan> = fc.record({
  batch: dims(0, 2), nQ: fc.integer({ min: 1, max: 5 }), nK: fc.integer({ min: 1, max: 5 }), dK: fc.integer({ min: 1, max: 8 }), dV: fc.integer({ min: 1, max: 6 }),
  mask: fc.constantFrom<MaskShape>('none', 'full', '2d', 'batch_one', 'key_one', 'fully_masked'), scale: flag, returnWeights: flag, dtype, seed,
});
export const SINGLE_HEAD: fc.Arbitrary<SingleHeadPlan> = fc.record({
  batch: dims(0, 2), seq: fc.integer({ min: 1, max: 5 }), d: fc.integer({ min: 1, max: 8 }), scale: flag, mask: fc.constantFrom('none' as const, 'causal' as const, 'other' as const), dtype, seed,
});
export const MULTI_HEAD: fc.Arbitrary<MultiHeadPlan> = fc.record({
  batch: dims(0, 2), seq: fc.integer({ min: 1, max: 5 }), numHeads: fc.integer({ min: 1, max: 3 }), dHead: fc.integer({ min: 1, max: 4 }),
  mask: fc.constantFrom('none' as const, 'causal' as const, 'other' as const), dtype, seed,
});

const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

function floats(shape: number[], at: number, kind: 'float32' | 'float64', scale = 1): Tensor {
  const values = gaussian(size(shape), at);
  return new Tensor(kind === 'float64' ? Float64Array.from(values, (v) => v * scale) : Float32Array.from(values, (v) => v * scale), shape);
}

/** 0/1 by a draw above −0.3, about 6 keys in 10 allowed; `keep`: these flat positions are 1 whatever was drawn. */
const bits = (shape: number[], at: number, keep: (i: number) => boolean = () => false) =>
  new Tensor(Uint8Array.from(gaussian(size(shape), at), (v, i) => (v > -0.3 || keep(i) ? 1 : 0)), shape);

function attentionMask(p: AttentionPlan, at: number): Tensor | undefined {
  switch (p.mask) {
    case 'none': return undefined;
    case 'full': return bits([...p.batch, p.nQ, p.nK], at);
    case '2d': return bits([p.nQ, p.nK], at);
    case 'batch_one': return bits([...p.batch.map(() => 1), p.nQ, p.nK], at);
    case 'key_one': return bits([p.nQ, 1], at);
    case 'fully_masked': {
      const mask = bits([...p.batch, p.nQ, p.nK], at);
      mask.data.fill(0, 0, p.nK);
      return mask;
    }
  }
}

/** Boolean params as the spec reads them (0 or 1), only those the plan gives. */
const flags = (given: Record<string, boolean | undefined>) =>
  Object.fromEntries(Object.entries(given).flatMap(([name, value]) => (value === undefined ? [] : [[name, Number(value)]])));

export function attentionData(p: AttentionPlan): CaseData {
  const mask = attentionMask(p, p.seed + 3);
  return {
    params: flags({ scale: p.scale, returnWeights: p.returnWeights }),
    inputs: {
      q: floats([...p.batch, p.nQ, p.dK], p.seed, p.dtype), k: floats([...p.batch, p.nK, p.dK], p.seed + 1, p.dtype), v: floats([...p.batch, p.nK, p.dV], p.seed + 2, p.dtype),
      ...(mask && { mask }),
    },
  };
}

function selfMask(kind: 'none' | 'causal' | 'other', seq: number, at: number): Tensor | undefined {
  if (kind === 'none') return undefined;
  // 'other' keeps the diagonal: no query is fully masked (a biased output projection would not output zeros there).
  return kind === 'causal' ? new Tensor(Uint8Array.from({ length: seq * seq }, (_, i) => Number(i % seq <= Math.floor(i / seq))), [seq, seq]) : bits([seq, seq], at, (i) => i % (seq + 1) === 0);
}

function projections(names: readonly string[], d: number, at: number, kind: 'float32' | 'float64'): Record<string, Tensor> {
  return Object.fromEntries(names.flatMap((p, i) => [[`${p}_proj`, floats([d, d], at + 2 * i, kind, 1 / Math.sqrt(d))], [`${p}_bias`, floats([d], at + 2 * i + 1, kind, 1 / Math.sqrt(d))]]));
}

export function singleHeadData(p: SingleHeadPlan): CaseData {
  const mask = selfMask(p.mask, p.seq, p.seed + 20);
  return {
    params: flags({ scale: p.scale }),
    inputs: { x: floats([...p.batch, p.seq, p.d], p.seed, p.dtype), ...projections(['q', 'k', 'v'], p.d, p.seed + 1, p.dtype), ...(mask && { mask }) },
  };
}

export function multiHeadData(p: MultiHeadPlan): CaseData {
  const d = p.numHeads * p.dHead;
  const mask = selfMask(p.mask, p.seq, p.seed + 20);
  return {
    params: { numHeads: p.numHeads },
    inputs: { x: floats([...p.batch, p.seq, d], p.seed, p.dtype), ...projections(['q', 'k', 'v', 'o'], d, p.seed + 1, p.dtype), ...(mask && { mask }) },
  };
}
