/**
 * --carry-forward: a multi-head case whose code is right given the student's own attention earns
 * its points, and says so; without the flag nothing changes; a multi-head mistake of its own still
 * loses them. The flag end to end, through the grader's children, on a missing scale; the
 * catalogue's honest mistakes (one of each kind), a multi-head mistake of its own and two answers
 * that need no attention in this process, where what is carried is decided.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CARRIED_REASON } from '../../tests/carryForward/carryForward';
import { loadCaseFixtures } from '../../lib/grading/grade';
import { GRADED_CASES } from '../../tests/cases';
import { toGradescope } from '../../lib/report/gradescope';
import { PROJECT_ROOT } from '../../lib/paths';
import { grade, gradeOptions } from './harness';
import { tempDir } from './materialize';
import { BUGS } from '../catalogue';
import { ASSIGNMENT } from '../../tests/assignment';
import { Tensor } from '../../lib/tensor';
import { CaseEngine, phases, runPhases, verdictsOf } from '../../lib/grading/engine';
import type { GradedCase } from '../../lib/assignment/cases';
import { carryForward } from '../../lib/grading/afterGrading';
import { DEFAULT_BUDGET_MS, FunctionLedger } from '../../lib/grading/faults';
import { inProcessBackend, InProcessSession } from '../../lib/grading/inProcess';
import { PER_TEST_LIMIT_MS } from '../../lib/grading/hangWords';
import { DEFAULT_MEMORY_BYTES } from '../../lib/sandbox/outOfMemory';
import { mergeHeads, splitHeads, type Weights } from '../catalogue/bugs/base';

const work = tempDir('carry-forward');
const everyMultiHead = GRADED_CASES.filter((c) => c.fn === 'multihead_self_attention');
/** Only the multi-head cases, hidden ones included: all that the catalogue's tests read, and all that the flag can carry. */
const multiHeadOnly = { cases: everyMultiHead, fixtures: loadCaseFixtures(ASSIGNMENT, everyMultiHead) };

/** The reference with only the scale forgotten: its multi-head attention calls its own attention. */
function scaleForgotten(): string {
  const dir = path.join(work, 'scale_forgotten');
  fs.mkdirSync(dir, { recursive: true });
  const reference = fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8');
  const broken = reference.replace('Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(dK))', 'Q.matmul(K.transpose(-2, -1))');
  expect(broken).not.toBe(reference);
  fs.writeFileSync(path.join(dir, 'index.ts'), broken.replace(/'\.\.\/lib\//g, "'../../lib/"));
  return dir;
}

// With one feature per head (numHeads = dModel) √d_head is 1 and the split is the same either way:
// a missing scale or interleaved heads change nothing there, so those cases pass on their own.
const oneFeature = (c: { fixture: string }) => {
  const { params, inputs } = multiHeadOnly.fixtures.get(c.fixture)!;
  return params.numHeads === inputs.x.shape[inputs.x.ndim - 1];
};
const multiHead = GRADED_CASES.filter((c) => c.fn === 'multihead_self_attention' && !oneFeature(c));
/**
 * Every multi-head case, and the visible cases of the other functions, failed ones among them:
 * what the flag may not change is shown on those (a hidden case of theirs is graded the same way,
 * and each failed one would only cost its diagnosis twice more).
 */
const besideOthers = GRADED_CASES.filter((c) => !c.hidden || c.fn === 'multihead_self_attention');
const mixed = { cases: besideOthers, fixtures: loadCaseFixtures(ASSIGNMENT, besideOthers) };
const pointsOf = (fn: string, cases: { fn: string; points: number }[]) => cases.filter((c) => c.fn === fn).reduce((s, c) => s + c.points, 0);

describe('--carry-forward', () => {
  it('a missing scale only: its multi-head points come back with the flag, said in the reason; nothing else changes', async () => {
    const dir = scaleForgotten();
    const without = await grade(dir, 'scale_forgotten', gradeOptions(mixed));
    const withFlag = await grade(dir, 'scale_forgotten', { ...gradeOptions(mixed), carryForward: true });
    const shown = (r: typeof without) => r.cases.filter((c) => multiHead.some((m) => m.name === c.name));
    expect(shown(without).every((c) => c.status === 'failed')).toBe(true);
    const carried = shown(withFlag);
    expect(carried.map((c) => [c.status, c.reason, c.carried])).toEqual(multiHead.map(() => ['passed', CARRIED_REASON, true]));
    expect(withFlag.score - without.score).toBe(pointsOf('multihead_self_attention', multiHead));
    // Every other case: the same verdict either way.
    const others = (r: typeof without) => r.cases.filter((c) => !multiHead.some((m) => m.name === c.name)).map((c) => [c.name, c.status, c.points]);
    expect(others(withFlag)).toEqual(others(without));
    expect(toGradescope(withFlag).extra_data.carried).toEqual(multiHead.map((c) => c.name));
    expect(toGradescope(without).extra_data.carried).toBeUndefined();
  });
});

/** A catalogue entry's attention (tensors in, one tensor out). */
type Attention = (Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) => Tensor;

/**
 * The catalogue's `name` under a multi-head attention that calls it (as ownMultiHead writes it;
 * with `ownMultiHead` false, as the entry is), graded with --carry-forward on every multi-head case
 * in this process, as the grader grades it (grade.ts): the engine's verdicts, then
 * afterGrading.ts's carryForward, whose asks go to the same functions. What a child adds (fresh
 * processes, the channel) is the end-to-end test's above and attacks.test.ts's (honest mistakes
 * carried, and multi-head answers of the attacks' own refused, in one contained batch).
 */
async function gradedInProcess(name: string, ownMultiHead = true): Promise<{ name: string; status: string; reason: string; carried: boolean }[]> {
  const entry = BUGS.find((b) => b.name === name)!;
  const bug = (await import(entry.file)) as { scaledDotProductAttention: Attention; multiHeadSelfAttention: unknown };
  const own = (x: Tensor, w: Weights, numHeads: number, mask?: Tensor) => {
    const heads = (p: Tensor) => splitHeads(x.matmul(p.transpose(0, 1)), numHeads);
    const out = bug.scaledDotProductAttention(heads(w.qProj), heads(w.kProj), heads(w.vProj), mask);
    return mergeHeads(new Tensor(out.data, out.shape)).matmul(w.oProj.transpose(0, 1));
  };
  const session = new InProcessSession(ownMultiHead ? { ...bug, multiHeadSelfAttention: own } : bug, ASSIGNMENT.functions, 'index.ts');
  const backend = inProcessBackend(session, path.dirname(entry.file), name);
  const ledger = FunctionLedger.forCases(DEFAULT_BUDGET_MS, everyMultiHead, ASSIGNMENT.functions);
  const engine = new CaseEngine(ASSIGNMENT, ledger, { timeoutMs: PER_TEST_LIMIT_MS, memoryBytes: DEFAULT_MEMORY_BYTES });
  // The honest mistakes keep no state: one instance serves both phases, where the grader starts a child for each.
  const fixtureOf = (c: GradedCase) => multiHeadOnly.fixtures.get(c.fixture)!;
  const runs = await runPhases(engine, everyMultiHead, fixtureOf, backend, () => {});
  const verdicts = verdictsOf(runs);
  for (const phase of phases(everyMultiHead)) {
    await carryForward(ASSIGNMENT, { call: backend.call, takeOutput: backend.takeOutput, kill: () => {} }, phase, multiHeadOnly.fixtures, verdicts);
  }
  return everyMultiHead.map((c) => {
    const { status, reason, carried } = verdicts.get(c.name)!;
    return { name: c.name, status, reason, carried: Boolean(carried) };
  });
}

/**
 * Honest mistakes in attention under a multi-head attention that calls them, one of each kind
 * (scale, mask, softmax, batch handling, normalisation, output): what was carried before the probe
 * hid the heads among siblings is still carried. Two answers that need no attention are not: zeros
 * (output_zeros_loop), and on causal cases every row equal to the first value (mask_first_row_loop
 * reads the mask's first row for every query, so each query attends to key 0 alone).
 */
describe('--carry-forward on the catalogue', () => {
  // (With one head, or one feature per head, interleaved heads are the contiguous ones: those cases pass on their own.)
  it('a multi-head mistake of its own (heads interleaved) on a correct attention keeps no points', async () => {
    const multi = await gradedInProcess('heads_interleaved', false);
    expect(multi.filter((c) => c.status === 'failed').length).toBeGreaterThan(0);
    expect(multi.filter((c) => c.carried).map((c) => c.name)).toEqual([]);
  });


  const carried = ['scale_by_dk_loop', 'mask_inverted', 'softmax_over_queries', 'batch_mixed_loop', 'denominator_plus_one', 'output_relu', 'online_softmax_no_rescale', 'kv_swapped'];

  it.each(carried)('%s: every multi-head case that fails is carried', async (name) => {
    const multi = await gradedInProcess(name);
    expect(multi.filter((c) => c.status !== 'passed').map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
    expect(multi.some((c) => c.carried)).toBe(true);
  });

  it('output_zeros_loop: zeros carry nothing', async () => {
    expect((await gradedInProcess('output_zeros_loop')).map((c) => c.status)).toEqual(everyMultiHead.map(() => 'failed'));
  });

  /** The mask of a multi-head case: none, causal, or another. */
  const maskKind = (c: { fixture: string }) => {
    const mask = multiHeadOnly.fixtures.get(c.fixture)!.inputs.mask;
    if (!mask) return 'none';
    const [n] = mask.shape.slice(-2);
    return mask.data.every((v, i) => (v !== 0) === (i % n <= Math.floor(i / n) % n)) ? 'causal' : 'other';
  };

  // Every query reads the mask's first row: without a mask that is right; under a causal mask each
  // query attends to key 0 alone (a copy of V's first row, which carries nothing); under another
  // mask each query attends to the first query's keys, an honest mistake whose multi-head points carry.
  it('mask_first_row_loop: right without a mask, nothing carried under a causal one, carried under another', async () => {
    const expected = everyMultiHead.map((c) => {
      const kind = maskKind(c);
      return [c.name, kind === 'causal' ? 'failed' : 'passed', kind === 'other'];
    });
    expect((await gradedInProcess('mask_first_row_loop')).map((c) => [c.name, c.status, c.carried])).toEqual(expected);
  });
});
