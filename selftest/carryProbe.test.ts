/**
 * The carry-forward probe (carryProbe.ts) on its own, no child: the grid hides the case's heads
 * among siblings that each differ in one thing; attention and honest mistakes in it pass the
 * checks, and every answer that needs no attention is refused, on the course's multi-head fixtures
 * and on generated shapes.
 */
import { describe, expect, it } from 'vitest';
import { causalMask, scaledDotProductAttention as attention, softmax } from '../reference/index';
import { CONTRACT_TOLERANCE, GRADED_CASES } from '../tests/cases';
import { gaussian } from '../lib/random';
import { Tensor } from '../lib/tensor';
import { carryProblem, ENTRIES, FACTORS, probeGrid, REAL, splitHeads, type ProbeInputs } from '../tests/carryForward/carryProbe';
import { loadCaseFixtures } from '../lib/grading/grade';
import { ASSIGNMENT } from '../tests/assignment';

type Answer = (entry: ProbeInputs) => Tensor;
const answerAll = (grid: ReturnType<typeof probeGrid>, answer: Answer) => grid.entries.map((entry) => answer(entry).astype('float64'));

const HONEST: Record<string, Answer> = {
  attention: ({ q, k, v, mask }) => attention(q, k, v, mask),
  'scale missing': ({ q, k, v, mask }) => attention(q.mul(Math.sqrt(q.shape[q.ndim - 1])), k, v, mask),
  'keys and values swapped': ({ q, k, v, mask }) => attention(q, v, k, mask),
  'softmax over the queries': ({ q, k, v, mask }) => {
    const scores = q.matmul(k.transpose(-2, -1)).div(Math.sqrt(q.shape[q.ndim - 1]));
    return softmax(mask ? scores.maskedFill(mask.eq(0), -1e9) : scores, -2).matmul(v);
  },
  'mask ignored': ({ q, k, v }) => attention(q, k, v),
};

const CHEAT: Record<string, [Answer, RegExp]> = {
  zeros: [({ v }) => v.mul(0), /all zeros/],
  constant: [({ v }) => v.mul(0).add(0.25), /the same value everywhere/],
  'values copied': [({ v }) => v, /values, copied/],
  'queries rescaled': [({ q }) => q.mul(2).add(1), /queries, rescaled/],
  'uniform attention (rows ignore the queries)': [({ k, v, mask }) => attention(k.mul(0), k, v, mask), /does not depend on the queries/],
  'Q⊙K + V (elementwise)': [({ q, k, v }) => q.mul(k).add(v), /only in the features that changed/],
  'V + q·k at each position': [({ q, k, v }) => v.add(q.mul(k).sum(-1, true)), /only at the positions that changed/],
  'attention on the queries only': [({ q, v, mask }) => attention(q, q, v, mask), /does not depend on the keys/],
};

/** A multi-head case's inputs of a generated shape, drawn as the fixtures are. */
function generated(seed: number, batch: number[], heads: number, seq: number, dHead: number, masked: boolean): { inputs: Record<string, Tensor>; numHeads: number } {
  const dModel = heads * dHead;
  const draw = (shape: number[], s: number, scale = 1) => new Tensor(Float32Array.from(gaussian(shape.reduce((a, b) => a * b, 1), `${seed}-${s}`), (v) => v * scale), shape);
  const w = (s: number) => draw([dModel, dModel], s, 1 / Math.sqrt(dModel));
  return {
    inputs: { x: draw([...batch, seq, dModel], 0), q_proj: w(1), k_proj: w(2), v_proj: w(3), o_proj: w(4), ...(masked ? { mask: causalMask(seq) } : {}) },
    numHeads: heads,
  };
}

const fixtures = loadCaseFixtures(ASSIGNMENT, GRADED_CASES.filter((c) => c.fn === 'multihead_self_attention'));
const CASES = [
  ...[...fixtures.values()].map((f) => ({ name: f.key, inputs: f.inputs, numHeads: f.params.numHeads })),
  ...[
    [[], 1, 5, 4, false], [[3], 2, 2, 2, true], [[2, 2], 3, 7, 3, true], [[], 4, 9, 8, false], [[1], 2, 3, 5, true],
  ].map(([batch, heads, seq, dHead, masked], i) => ({
    name: `generated [${(batch as number[]).join(',')}] ${heads} heads, seq ${seq}, dHead ${dHead}${masked ? ', causal' : ''}`,
    ...generated(i, batch as number[], heads as number, seq as number, dHead as number, masked as boolean),
  })),
];

describe.each(CASES)('$name', ({ inputs, numHeads }) => {
  const grid = probeGrid(inputs, numHeads);

  it("holds the case's own heads and 15 siblings, each differing from them in the factors its index names", () => {
    expect(grid.entries).toHaveLength(ENTRIES);
    const own = grid.entries[REAL];
    expect([...own.q.data]).toEqual([...splitHeads(inputs.x, inputs.q_proj, numHeads).data]);
    for (let i = 0; i < ENTRIES; i++) {
      const entry = grid.entries[i];
      const changed = (name: 'q' | 'k' | 'v') => entry[name].data.some((value, j) => value !== own[name].data[j]);
      const x = (i >> FACTORS.indexOf('x')) & 1;
      for (const name of ['q', 'k', 'v'] as const) expect(changed(name), `${i} ${name}`).toBe(Boolean(x || (i >> FACTORS.indexOf(name)) & 1));
      expect(entry.q.shape).toEqual(own.q.shape);
    }
    const dHead = grid.shape[grid.shape.length - 1];
    for (const name of ['q', 'k', 'v'] as const) {
      for (const picked of grid.features[name]) expect(picked.length > 0 && (dHead < 2 || picked.length < dHead)).toBe(true);
    }
  });

  it.each(Object.keys(HONEST))('%s: may carry', (name) => {
    const answers = answerAll(grid, HONEST[name]);
    expect(carryProblem(grid, answers, answerAll(grid, HONEST[name]), CONTRACT_TOLERANCE)).toBeUndefined();
  });

  it.each(Object.keys(CHEAT))('%s: refused, saying why', (name) => {
    const [answer, why] = CHEAT[name];
    const answers = answerAll(grid, answer);
    const problem = carryProblem(grid, answers, answers, CONTRACT_TOLERANCE);
    // With one feature per head no strict subset of the features changes: an elementwise answer is
    // then refused as one that changes only where its inputs did.
    const dHead = grid.shape[grid.shape.length - 1];
    expect(problem).toMatch(dHead < 2 && name === 'Q⊙K + V (elementwise)' ? /only at the positions that changed/ : why);
  });

  it('an answer that is not the same when asked again: refused', () => {
    const answers = answerAll(grid, HONEST.attention);
    const again = answers.map((t) => t.add(1e-3));
    expect(carryProblem(grid, answers, again, CONTRACT_TOLERANCE)).toBe('its answer changed when asked again');
  });
});
