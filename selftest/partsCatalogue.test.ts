/**
 * The optional parts (tests/parts.ts `weights` and `single_head`), graded with their parts on
 * whatever the switch says (tests/assignment.ts assignmentWith): correct solutions written three
 * ways get full marks on every case, stored and drawn for 8 names, and agree with the float64
 * oracle within each part's float32 bound on calls drawn from the parts' whole domain; each
 * catalogued mistake loses points on its own function only and is diagnosed as itself and nothing
 * else, in this process and through the grader's contained child in the same words.
 */
import fc from 'fast-check';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { specOf } from '../lib/assignment/functions';
import { checkClose, checkShape, type Values } from '../lib/compare';
import { loadCaseFixtures } from '../lib/grading/grade';
import { InProcessSession } from '../lib/grading/inProcess';
import { submissionPage } from '../lib/report/submissionPage';
import { BOUND_NAME } from '../lib/model/manifest';
import type { Tensor } from '../lib/tensor';
import { float32Bound } from '../reference/float32Error';
import { loadVariants } from '../reference/fixtures/variants';
import type { CaseData } from '../reference/fixtures/caseBuild';
import { assignmentWith } from '../tests/assignment';
import { CONTRACT_TOLERANCE } from '../tests/cases';
import { MISTAKES } from '../tests/diagnosis/catalogue';
import { ALL_BUGS, ALL_CORRECT, type CatalogueEntry } from './catalogue';
import { grade, gradeOptions } from './grader/harness';
import { materialize, tempDir } from './grader/materialize';
import { answerOf } from './calls';
import { ATTENTION, attentionData, MULTI_HEAD, multiHeadData, SINGLE_HEAD, singleHeadData } from './parts/arbitraries';
import { gradeParts, type Graded } from './parts/gradeParts';
import * as oracle from './oracle';

const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`partsCatalogue.test.ts: fast-check seed ${SEED} (FC_SEED=${SEED} replays this run)`);

const PARTS = ['weights', 'single_head'];
const FORWARD = assignmentWith(['core', ...PARTS]);
const OWN = new Set(FORWARD.parts!.declared.filter((p) => PARTS.includes(p.id)).flatMap((p) => p.functions));
const implementsParts = (e: CatalogueEntry) => PARTS.every((id) => e.parts?.includes(id));
const CORRECT = ALL_CORRECT.filter(implementsParts);
const BUGS = ALL_BUGS.filter((e) => e.breaks !== undefined && OWN.has(e.breaks));

const load = async (file: string) => (await import(file)) as object;
/** Each entry graded once on every case of the parts and of the core (a bug must break its own function only). */
const graded = new Map<string, Promise<Graded[]>>();
function gradedInProcess(entry: CatalogueEntry): Promise<Graded[]> {
  if (!graded.has(entry.name)) {
    graded.set(entry.name, Promise.all([load(entry.file), load(`${entry.file}?probe`)]).then(([impl, probed]) => gradeParts(FORWARD, impl, probed, entry.name, FORWARD.cases)));
  }
  return graded.get(entry.name)!;
}

describe('the parts\' entries', () => {
  it('three correct solutions, a bug per known mistake of the parts, each on its own function', () => {
    expect(CORRECT.map((e) => e.name)).toEqual(['reference', 'tensor_methods_neg_inf', 'parts_float32_loops']);
    const partMistakes = MISTAKES.filter((m) => OWN.has(m.fn)).map((m) => m.id);
    expect(partMistakes.length).toBeGreaterThanOrEqual(3 * OWN.size);
    expect(BUGS.map((b) => b.mistake).sort()).toEqual([...partMistakes].sort());
    expect(BUGS.every(implementsParts)).toBe(true);
  });
});

describe('correct solutions get full marks on every case of the parts, stored and drawn', () => {
  it.each(CORRECT.map((e) => [e.name, e] as const))('%s, stored', async (_, entry) => {
    const failed = (await gradedInProcess(entry)).filter((r) => !r.passed);
    expect(failed.map((r) => `${r.graded.name}: ${r.message}`)).toEqual([]);
  });

  it('each, on the hidden cases drawn for 8 names', async () => {
    const hidden = FORWARD.cases.filter((c) => c.hidden && OWN.has(c.fn));
    expect(hidden.length).toBeGreaterThan(0);
    const variants = loadVariants(`parts ${SEED}`);
    const failures: string[] = [];
    for (const name of fc.sample(fc.string({ maxLength: 20 }), { seed: SEED, numRuns: 8 })) {
      const drawn = variants.draw(name, hidden);
      for (const entry of CORRECT) {
        const [impl, probed] = await Promise.all([load(entry.file), load(`${entry.file}?probe`)]);
        const results = await gradeParts(FORWARD, impl, probed, entry.name, hidden, (c) => drawn.get(c.fixture)!);
        failures.push(...results.filter((r) => !r.passed).map((r) => `${entry.name}, drawn for ${JSON.stringify(name)}: ${r.graded.name}: ${r.message.split('\n')[0]}`));
      }
    }
    expect(failures).toEqual([]);
  });
});

/** Every part the call returns of `impl`'s answer, against the oracle's, within the contract's tolerance or the part's float32 bound; undefined when all agree. */
function disagreement(fn: string, impl: object, label: string, data: CaseData): string | undefined {
  const spec = specOf(FORWARD.functions, fn);
  const outcome = new InProcessSession(impl, FORWARD.functions, label).call(fn, data);
  if (outcome.kind !== 'value') return `${outcome.kind}${outcome.kind === 'threw' ? `: ${outcome.error.message}` : ''}`;
  const computed = answerOf<oracle.Out | Record<string, oracle.Out | undefined>>(oracle, fn, data);
  const expected: Record<string, Values | undefined> = spec.returns.tuple ? (computed as Record<string, oracle.Out | undefined>) : { [spec.returns.part.name]: computed as oracle.Out };
  const names = outcome.value.map((p) => p.name);
  const wanted = Object.entries(expected).filter(([, out]) => out !== undefined).map(([name]) => name);
  if (names.join() !== wanted.join()) return `returned ${names.join(', ')}, the oracle ${wanted.join(', ')}`;
  for (const { name, value } of outcome.value) {
    const output = value as Tensor;
    const shape = checkShape(output, expected[name]!);
    if (!shape.passed) return `${name}: ${shape.message}`;
    const bound = float32Bound(fn, data.inputs, data.params, spec.returns.tuple ? name : undefined);
    const close = checkClose(output, expected[name]!, CONTRACT_TOLERANCE, bound && { name: BOUND_NAME, bounds: () => bound });
    if (!close.passed) return `${name}: ${close.message}`;
  }
  return undefined;
}

describe('every correct solution agrees with the float64 oracle on calls drawn from the parts\' whole domain', () => {
  const DRAWS: [string, fc.Arbitrary<object>, (plan: never) => CaseData][] = [
    ['attention', ATTENTION, attentionData],
    ['single_head_attention', SINGLE_HEAD, singleHeadData],
    ['multihead_attention', MULTI_HEAD, multiHeadData],
  ];
  it.each(DRAWS.map(([fn, plans, build], i) => [fn, plans, build, i] as const))('%s', async (fn, plans, build, i) => {
    const solutions = await Promise.all(CORRECT.map(async (e) => ({ name: e.name, impl: await load(e.file) })));
    fc.assert(
      fc.property(plans, (plan) => {
        const data = build(plan as never);
        for (const { name, impl } of solutions) {
          const off = disagreement(fn, impl, name, data);
          if (off) throw new Error(`${name}: ${off}`);
        }
      }),
      { seed: SEED + i, numRuns: Number(process.env.FC_RUNS ?? 40) },
    );
  });

  it('the comparison sees a solution that is wrong on one class only: attention unscaled when asked to scale by default', async () => {
    const right = (await load(CORRECT[0].file)) as { attention: (...args: unknown[]) => unknown };
    const wrong = { attention: (Q: unknown, K: unknown, V: unknown, o: { scale?: boolean } = {}) => right.attention(Q, K, V, { ...o, scale: o.scale === true }) };
    const caught = (scale: boolean | undefined) =>
      fc.check(fc.property(ATTENTION.filter((p) => p.scale === scale && p.dK > 1), (plan) => disagreement('attention', wrong, 'wrong', attentionData(plan)) === undefined), { seed: SEED, numRuns: 20 }).failed;
    expect(caught(undefined)).toBe(true);
    expect(caught(true)).toBe(false);
    expect(caught(false)).toBe(false);
  });
});

describe('each bug of the parts fails a test of its own function only, and is diagnosed as itself and nothing else', () => {
  it.each(BUGS.map((e) => [e.name, e] as const))('%s', async (_, entry) => {
    const results = await gradedInProcess(entry);
    expect(results.filter((r) => !r.passed && !r.graded.hidden && r.graded.fn === entry.breaks).length, `${entry.name} passes every visible test`).toBeGreaterThan(0);
    expect(results.filter((r) => !r.passed && r.graded.fn !== entry.breaks).map((r) => `${r.graded.name}: ${r.message}`)).toEqual([]);
    expect(results.filter((r) => r.diagnosis?.mistake === entry.mistake).length, `${entry.name} is never diagnosed as ${entry.mistake}`).toBeGreaterThan(0);
    expect(results.filter((r) => r.diagnosis && r.diagnosis.mistake !== entry.mistake).map((r) => `${r.graded.name}: ${r.diagnosis!.mistake}`)).toEqual([]);
  });
});

describe('through the grader\'s contained child: the same verdicts and the same words', () => {
  const work = tempDir('parts-catalogue');
  const cases = FORWARD.cases.filter((c) => OWN.has(c.fn));
  const options = { ...gradeOptions(), assignment: FORWARD, cases, fixtures: loadCaseFixtures(FORWARD, cases), timeoutMs: 30_000 };
  /** The bug whose heatmaps are checked below. */
  const DRAWN = 'attention_scores_as_weights';
  /**
   * Each bug graded once through the child, shared by the tests below; DRAWN with heatmaps, which
   * are probed after every verdict and diagnosis is settled (lib/grading/grade.ts) and change neither.
   */
  const byChild = new Map<string, ReturnType<typeof grade>>();
  const gradedByChild = (name: string) => {
    if (!byChild.has(name)) byChild.set(name, grade(materialize(BUGS.find((b) => b.name === name)!.file, path.join(work, 'bugs'), name), name, { ...options, heatmaps: name === DRAWN }));
    return byChild.get(name)!;
  };

  it.each([DRAWN, 'single_head_bias_missing', 'mha_weights_averaged'])('%s', async (name) => {
    const entry = BUGS.find((b) => b.name === name)!;
    const inProcess = (await gradedInProcess(entry)).filter((r) => OWN.has(r.graded.fn));
    const result = await gradedByChild(name);
    expect(result.parts).toEqual(['core', ...PARTS]);
    expect(result.cases.map((c) => [c.name, c.status === 'passed', c.diagnosis?.message])).toEqual(inProcess.map((r) => [r.graded.name, r.passed, r.diagnosis?.message]));
    expect(result.cases.some((c) => c.diagnosis?.message === MISTAKES.find((m) => m.id === entry.mistake)!.message)).toBe(true);
  });

  it('a wrong weights output is drawn: each failed case that expects weights has a heatmap of the weights the function returned', async () => {
    const entry = BUGS.find((b) => b.name === DRAWN)!;
    const result = await gradedByChild(DRAWN);
    const fixtureOf = (test: string) => options.fixtures.get(cases.find((c) => c.name === test)!.fixture)!;
    const failed = result.cases.filter((c) => c.status !== 'passed').map((c) => c.name);
    expect(failed.length).toBeGreaterThan(0);
    // returnWeights: false expects no weights: nothing to draw.
    expect([...result.heatmaps!.keys()]).toEqual(failed.filter((test) => fixtureOf(test).parts.weights));
    const impl = await load(entry.file);
    for (const [test, { actual, expected, batchIndex, problem }] of result.heatmaps!) {
      expect(problem, test).toBeUndefined();
      const fixture = fixtureOf(test);
      const { weights } = answerOf<{ weights: Tensor }>(impl, 'attention', { params: fixture.params, inputs: fixture.inputs });
      const [rows, cols] = weights.shape.slice(-2);
      const at = batchIndex.reduce((acc, i, d) => acc * weights.shape[d] + i, 0) * rows * cols;
      expect([actual!.rows, actual!.cols], test).toEqual([rows, cols]);
      expect(Array.from(actual!.data).every((x, i) => Math.abs(x - weights.data[at + i]) <= 1e-6 * (1 + Math.abs(x))), test).toBe(true);
      // A hidden case's expected weights are drawn only on an instructor's page.
      if (cases.find((c) => c.name === test)!.hidden) expect(expected, test).toBeUndefined();
      else expect(Array.from(expected!.data), test).toEqual(Array.from(fixture.parts.weights.data.subarray(at, at + rows * cols)));
    }
    expect(submissionPage(result, FORWARD.cases, FORWARD.page)).toContain('its heatmap is the weights it returned');
  });
});
