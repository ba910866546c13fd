/**
 * The mistake catalogue's correct solutions graded in process, each once, and what their results
 * must show: full marks, and no mistake matched even when a diagnosis is asked of an output that
 * passed. What each bug must show is checked on the catalogue's one grading per path
 * (selftest/grader/verdicts.test.ts, catalogueClaims.ts), and the student's own `vitest run -t` on
 * one of them by selftest/suite.test.ts; here, the catalogue's own coherence and what the diagnosis
 * reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Submission } from '../adapters';
import { probeOf } from '../lib/suite/submission';
import { ASSIGNMENT } from '../tests/assignment';
import { caller } from './calls';
import { isObservation, MISTAKES } from '../tests/diagnosis/catalogue';
import { diagnose } from '../tests/diagnosis/diagnose';
import { withinTolerance } from '../lib/diagnosis/probe';
import { parseNonFinite } from '../lib/diagnosis/explain';
import { FixtureError } from '../lib/errors';
import { InProcessSession, inProcessContext } from '../lib/grading/inProcess';
import { loadFixture } from '../lib/model/fixtures';
import { PROJECT_ROOT } from '../lib/paths';
import type { Tensor } from '../lib/tensor';
import * as reference from '../reference';
import { GRADED_CASES } from '../tests/cases';
import { ALL_BUGS, CORRECT, type CatalogueEntry } from './catalogue';
import { gradeInProcess, type CaseResult } from './gradeInProcess';
import { tempDir } from './grader/materialize';
import { HARNESS_CAUSES } from '../lib/diagnosis/explain';

const load = async (file: string) => (await import(file)) as Partial<Submission>;
const work = tempDir('diagnosis');

/**
 * Each correct solution graded in process once, on every case, for every test below that reads its
 * results: a module may keep state between calls, so a second grading of the same module would not
 * be the first.
 */
const graded = new Map<string, Promise<CaseResult[]>>();
function gradedInProcess(entry: CatalogueEntry): Promise<CaseResult[]> {
  // The probes get an instance of their own (a query makes the module a new one), as in npm test and the grader.
  if (!graded.has(entry.name)) graded.set(entry.name, Promise.all([load(entry.file), load(`${entry.file}?probe`)]).then(([impl, probed]) => gradeInProcess(impl, entry.name, undefined, undefined, probed)));
  return graded.get(entry.name)!;
}

describe('correct solutions written other ways get full marks (visible and hidden cases)', () => {
  it.each(CORRECT.map((e) => [e.name, e] as const))('%s', async (_, entry) => {
    const failed = (await gradedInProcess(entry)).filter((r) => !r.passed);
    expect(failed.map((r) => `${r.graded.name}: ${r.message}`)).toEqual([]);
  });
});

describe('the catalogue of mistakes', () => {
  it('every bug names a known mistake, and every known mistake has a bug that shows it', () => {
    const ids = MISTAKES.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Every part's bugs, whatever the switch grades: the optional parts' are graded by partsCatalogue.test.ts.
    const bugs = ALL_BUGS;
    // The harness's own causes (a replay of the graded call that answers otherwise, an output's facts) are no assignment's mistakes.
    const harness = (id: string | undefined) => HARNESS_CAUSES.some((c) => c.id === id);
    expect(bugs.filter((b) => !b.undiagnosed).map((b) => b.mistake).filter((id) => !ids.includes(id!) && !harness(id))).toEqual([]);
    // A bug names its mistake, or says why no probe confirms one yet: never both, never neither.
    expect(bugs.filter((b) => (b.mistake === undefined) === (b.undiagnosed === undefined)).map((b) => b.name)).toEqual([]);
    const shown = (id: string) => bugs.some((b) => b.mistake === id || (b.breaksMultiHead && (b.multiHeadMistake ?? 'attention_broken') === id));
    expect(MISTAKES.filter((m) => !m.generic && !shown(m.id)).map((m) => m.id)).toEqual([]);
    expect(bugs.filter((b) => !b.undiagnosed && !harness(b.mistake) && MISTAKES.find((m) => m.id === b.mistake)?.fn !== b.breaks).map((b) => b.name)).toEqual([]);
  });
});

describe('correct solutions match no mistake', () => {
  it.each(CORRECT.map((e) => [e.name, e] as const))('%s', async (_, entry) => {
    const impl = await load(entry.file);
    const results = await gradedInProcess(entry);
    // They pass, so nothing asks for a diagnosis: ask anyway, with their outputs, probes and all.
    const context = inProcessContext(probeOf(ASSIGNMENT, impl, entry.name), new InProcessSession(impl, ASSIGNMENT.functions, entry.name), ASSIGNMENT);
    const matched = [];
    for (const r of results) {
      if (r.output) matched.push([r.graded.name, await diagnose(r.graded, r.fixture, { kind: 'output', output: r.output }, context)]);
    }
    expect(matched.filter(([, diagnosis]) => diagnosis !== undefined)).toEqual([]);
    expect(results.filter((r) => !r.passed).map((r) => r.graded.name)).toEqual([]);
  });
});

describe('a probe keeps the dtype of what it changes', () => {
  it('a float32 solution that rounds differently from float64 is not said to mix batch entries', async () => {
    // Scores near 8192: a float32 exp(x − logsumexp(x)) is then off by about 5e-4, past rtol, on
    // every batch entry alike. Given float64 entries in reverse order it rounds differently, and a
    // probe that widened the entries read that difference as entries that mix.
    const name = 'float32_log_sum_exp';
    const impl = await load(CORRECT.find((e) => e.name === name)!.file);
    const graded = GRADED_CASES.find((c) => c.fixture === 'sdpa_large_scores')!;
    const base = loadFixture('sdpa_large_scores');
    const inputs: Record<string, Tensor> = { ...base.inputs, q: base.inputs.q.mul(8) };
    expect(inputs.q.dtype).toBe('float32');
    const expected = reference.scaledDotProductAttention(inputs.q.astype('float64'), inputs.k.astype('float64'), inputs.v.astype('float64'));
    const fixture = { ...base, inputs, expected, probabilities: () => undefined, mistakes: () => new Map<string, Tensor>() };
    const output = impl.scaledDotProductAttention!(inputs.q, inputs.k, inputs.v) as Tensor;
    expect(withinTolerance(output, expected, graded.tolerance)).toBe(false);
    const context = inProcessContext(probeOf(ASSIGNMENT, impl, name), new InProcessSession(impl, ASSIGNMENT.functions, name), ASSIGNMENT);
    const diagnosis = await diagnose(graded, fixture, { kind: 'output', output }, context);
    // What the probes saw may be said; no cause may be named.
    expect(diagnosis === undefined || isObservation(diagnosis.mistake), diagnosis?.mistake).toBe(true);
  });
});

describe('what diagnosis reads from the adapters and the fixtures', () => {
  // Queries [0, 0], [0, 3] and [1, 5] (rows 0, 3 and 11 of 12) have every key masked; d_v is 16.
  const fixture = loadFixture('sdpa_fully_masked_rows');
  /** The adapter's refusal of the expected output with NaN written at `at`. */
  const refused = (at: number[]) => {
    const data = Float64Array.from(fixture.expected.data);
    for (const i of at) data[i] = NaN;
    try {
      caller({ scaledDotProductAttention: () => ({ shape: fixture.expected.shape, data }) })('scaled_dot_product_attention', fixture);
    } catch (err) {
      return { kind: 'unreadable' as const, name: (err as Error).name, message: (err as Error).message };
    }
    throw new Error('the adapter accepted NaN');
  };

  it('where the adapter found NaN, from its message', () => {
    expect(parseNonFinite(refused([17, 40]))).toEqual({ index: [0, 1, 1], count: 2 });
  });

  it("a fixture's mistake outputs are read only when asked for (a passing test never reads them)", () => {
    const dir = path.join(work, 'fixtures');
    fs.cpSync(path.join(PROJECT_ROOT, 'fixtures', 'softmax_last_dim'), path.join(dir, 'softmax_last_dim'), { recursive: true });
    fs.copyFileSync(path.join(PROJECT_ROOT, 'fixtures', 'manifest.json'), path.join(dir, 'manifest.json'));
    fs.rmSync(path.join(dir, 'softmax_last_dim', 'mistakes'), { recursive: true });
    const copy = loadFixture('softmax_last_dim', { fixturesDir: dir });
    expect(() => copy.mistakes()).toThrow(FixtureError);
  });
});
