/**
 * The mistake catalogue (selftest/catalogue/) graded in process, each entry once, and what its
 * results must show: correct solutions written other ways get full marks and match no mistake;
 * each bug loses points on its own function only, and is diagnosed as its own mistake on at least
 * one of its failing cases and never as another. Then some through the real grader (a child runs
 * the code) and once through a real `vitest run` of the graded suite.
 */
import { spawn } from 'node:child_process';
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
import { ALL_BUGS, BUGS, CORRECT, ownMistake, type CatalogueEntry } from './catalogue';
import { gradeInProcess, type CaseResult } from './gradeInProcess';
import { grade } from './grader/harness';
import { materialize, tempDir } from './grader/materialize';
import { ANSWER_CHANGES } from '../lib/diagnosis/explain';

const load = async (file: string) => (await import(file)) as Partial<Submission>;
const work = tempDir('diagnosis');
const bug = (name: string): CatalogueEntry => BUGS.find((b) => b.name === name)!;
const messageOf = (id: string) => MISTAKES.find((m) => m.id === id)!.message;
/** A diagnosis names several mistakes when their outputs coincide on the case ("a|b"), or when several show at once ("a+b"). */
const names = (mistake: string | undefined, id: string) => mistake?.split(/[|+]/).includes(id) ?? false;

/**
 * Each entry graded in process once, on every case, for every test below that reads its results: a
 * module keeps its state between calls (one of the bugs is that state), so a second grading of the
 * same module would not be the first.
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

describe('each bug fails a test of its own function and no other', () => {
  it.each(BUGS.map((e) => [e.name, e] as const))('%s', async (_, entry) => {
    const results = await gradedInProcess(entry);
    const failedVisible = results.filter((r) => !r.passed && !r.graded.hidden);
    expect(failedVisible.length, `${entry.name} passes every visible test`).toBeGreaterThan(0);
    const unrelated = results.filter((r) => !r.passed && r.graded.fn !== entry.breaks && !(entry.breaksMultiHead && r.graded.fn === 'multihead_self_attention'));
    expect(unrelated.map((r) => `${r.graded.name}: ${r.message}`)).toEqual([]);
  });
});

describe('returning the probabilities instead of P V', () => {
  it('loses the points of both probability cases, visible and hidden', async () => {
    const results = await gradedInProcess(bug('returns_probabilities'));
    const probability = results.filter((r) => r.graded.checks.includes('rows_sum_to_one'));
    expect(probability.map((r) => r.graded.name)).toEqual(['test_scaled_dot_product_attention_probabilities', 'test_4d_scaled_dot_product_attention_hidden']);
    expect(probability.filter((r) => r.passed)).toEqual([]);
  });
});

describe('the catalogue of mistakes', () => {
  it('every bug names a known mistake, and every known mistake has a bug that shows it', () => {
    const ids = MISTAKES.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Every part's bugs, whatever the switch grades: the optional parts' are graded by partsCatalogue.test.ts.
    const bugs = ALL_BUGS;
    // The harness's own cause (a replay of the graded call that answers otherwise) is no assignment's mistake.
    expect(bugs.filter((b) => !b.undiagnosed).map((b) => b.mistake).filter((id) => !ids.includes(id!) && id !== ANSWER_CHANGES.id)).toEqual([]);
    // A bug names its mistake, or says why no probe confirms one yet: never both, never neither.
    expect(bugs.filter((b) => (b.mistake === undefined) === (b.undiagnosed === undefined)).map((b) => b.name)).toEqual([]);
    const shown = (id: string) => bugs.some((b) => b.mistake === id || (b.breaksMultiHead && (b.multiHeadMistake ?? 'attention_broken') === id));
    expect(MISTAKES.filter((m) => !m.generic && !shown(m.id)).map((m) => m.id)).toEqual([]);
    expect(bugs.filter((b) => !b.undiagnosed && b.mistake !== ANSWER_CHANGES.id && MISTAKES.find((m) => m.id === b.mistake)?.fn !== b.breaks).map((b) => b.name)).toEqual([]);
  });
});

/** What a failing test of `entry` may say: its own mistake, one its code also makes, or an observation checked true of it. */
const mayBeSaid = (entry: CatalogueEntry, r: { graded: { fn: Parameters<typeof ownMistake>[1] } }, mistake: string) =>
  names(mistake, ownMistake(entry, r.graded.fn)!) || mistake.split(/[|+]/).every((id) => entry.mayAlsoSay?.includes(id) || entry.also?.includes(id));

describe('each bug is diagnosed as its own mistake, and says nothing else', () => {
  it.each(BUGS.filter((e) => !e.undiagnosed).map((e) => [e.name, e] as const))('%s', async (_, entry) => {
    const results = await gradedInProcess(entry);
    const asItself = results.filter((r) => !r.passed && r.diagnosis?.mistake === ownMistake(entry, r.graded.fn));
    expect(asItself.length, `${entry.name} is never diagnosed as ${entry.mistake}`).toBeGreaterThan(0);
    // An observation is a claim too: one not listed as true of this bug is as wrong as another cause.
    const asAnother = results.filter((r) => r.diagnosis && !mayBeSaid(entry, r, r.diagnosis.mistake));
    expect(asAnother.map((r) => `${r.graded.name}: ${r.diagnosis!.mistake}`)).toEqual([]);
    // Every failure of a multi-head attention built on a broken attention function says so.
    const silent = results.filter((r) => !r.passed && entry.breaksMultiHead && r.graded.fn === 'multihead_self_attention' && r.diagnosis?.mistake !== ownMistake(entry, r.graded.fn));
    expect(silent.map((r) => r.graded.name)).toEqual([]);
  });
});

describe('a bug no probe confirms yet is named as no other bug', () => {
  // What a probe measured (an observation, a generic finding such as a constant factor) may be said.
  const specific = (id: string) => id.split(/[|+]/).some((part) => !MISTAKES.find((m) => m.id === part)?.generic);
  it.each(BUGS.filter((e) => e.undiagnosed).map((e) => [e.name, e] as const))('%s', async (_, entry) => {
    const results = await gradedInProcess(entry);
    expect(results.filter((r) => !r.passed).length, `${entry.name} passes every test`).toBeGreaterThan(0);
    const named = results.filter((r) => r.diagnosis && specific(r.diagnosis.mistake));
    expect(named.map((r) => `${r.graded.name}: ${r.diagnosis!.mistake}`)).toEqual([]);
  });
});

describe('mistakes that break a premise of the probes: in the grader as in process, only their own diagnosis', () => {
  // Each once had a false claim said of it (issue 30): the probes' premises now speak first.
  const PREMISE_BUGS = ['v_reshaped_loop', 'denominator_not_reset', 'output_buffer_kept', 'mask_cached_by_shape', 'scale_cached_once', 'mhsa_kv_cache', 'running_max_from_zero', 'zero_row_key0_masked', 'mask_inverted_in_place'];
  /** The same code on the same inputs in the same order: the same words, locations included. */
  const DETERMINISTIC = ['v_reshaped_loop', 'denominator_not_reset', 'running_max_from_zero', 'zero_row_key0_masked'];
  const fnOf = (test: string) => GRADED_CASES.find((c) => c.name === test)!.fn;

  it.each(PREMISE_BUGS)('%s', async (name) => {
    const entry = bug(name);
    const result = await grade(materialize(entry.file, path.join(work, 'premises')), name);
    const failed = result.cases.filter((c) => c.status !== 'passed');
    expect(failed.filter((c) => c.diagnosis?.mistake === ownMistake(entry, fnOf(c.name))).length, `${name} is never named`).toBeGreaterThan(0);
    const wrong = failed.filter((c) => c.diagnosis && !mayBeSaid(entry, { graded: { fn: fnOf(c.name) } }, c.diagnosis.mistake));
    expect(wrong.map((c) => `${c.name}: ${c.diagnosis!.mistake}`)).toEqual([]);
    if (!DETERMINISTIC.includes(name)) return;
    const inProcess = await gradeInProcess(await load(entry.file), name, GRADED_CASES.filter((c) => !c.hidden), undefined, await load(`${entry.file}?probe`));
    const words = (list: { name: string; message?: string }[]) => Object.fromEntries(list.map((c) => [c.name, c.message]));
    expect(words(failed.map((c) => ({ name: c.name, message: c.diagnosis?.message })))).toEqual(
      words(inProcess.filter((r) => !r.passed).map((r) => ({ name: r.graded.name, message: r.diagnosis?.message }))));
  });
});

describe('the evidence says which weights the probe transposed', () => {
  it.each([
    ['projection_not_transposed', 'With all four weights transposed'],
    ['output_projection_not_transposed', 'With only oProj transposed'],
  ])('%s', async (name, evidence) => {
    const results = await gradedInProcess(bug(name));
    const named = results.filter((r) => r.diagnosis?.mistake === 'projection_not_transposed');
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((r) => !r.diagnosis!.message.includes(evidence)).map((r) => r.graded.name)).toEqual([]);
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

describe('both ways of running the suite show the diagnosis', () => {
  it.each([
    ['scale_missing', 'test_scaled_dot_product_attention', 'failed', 'scale_missing'],
    ['k_not_transposed', 'test_scaled_dot_product_attention', 'error', 'k_not_transposed'],
    ['fully_masked_nan', 'test_scaled_dot_product_attention_fully_masked_rows', 'failed', 'fully_masked_nan'],
    ['batch_first_only_loop', 'test_5d_scaled_dot_product_attention', 'failed', 'batch_first_only'],
    ['mhsa_on_broken_attention', 'test_multihead_self_attention_causal', 'failed', 'attention_broken'],
    ['heads_interleaved_loop', 'test_multihead_self_attention', 'failed', 'heads_interleaved'],
  ])('the grader (a child runs the code): %s', async (name, test, status, mistake) => {
    const result = await grade(materialize(bug(name).file, path.join(work, 'grader')), name);
    const graded = result.cases.find((c) => c.name === test)!;
    expect(graded.status).toBe(status);
    expect(graded.diagnosis?.mistake).toBe(mistake);
    expect(graded.diagnosis?.message.startsWith(messageOf(mistake))).toBe(true);
    expect(graded.reason.startsWith(`${graded.diagnosis?.message} — `)).toBe(true);
  });

  it.each(['scale_missing', 'fully_masked_nan', 'k_reshaped_loop'])('a real `vitest run -t scaled_dot_product`: %s', async (name) => {
    const dir = materialize(bug(name).file, path.join(work, 'vitest'));
    const report = path.join(work, `${name}.vitest.json`);
    const vitest = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
    const args = [vitest, 'run', '-t', 'scaled_dot_product', '--reporter=json', `--outputFile=${report}`];
    const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, env: { ...process.env, ATTENTION_SUBMISSION: dir }, stdio: 'ignore' });
    await new Promise((resolve) => child.on('exit', resolve));
    const json = JSON.parse(fs.readFileSync(report, 'utf8')) as { testResults: { assertionResults: { failureMessages: string[] }[] }[] };
    const messages = json.testResults.flatMap((f) => f.assertionResults).flatMap((a) => a.failureMessages);
    expect(messages.some((m) => m.includes(`Diagnosis: ${messageOf(bug(name).mistake!)}`)), messages.join('\n')).toBe(true);
  });
});
