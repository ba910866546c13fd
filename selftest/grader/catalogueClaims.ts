/**
 * What the mistake catalogue's bugs must show, checked on the one grading of each case
 * (selftest/grader/verdicts.test.ts: the visible cases by the grader, which npm test's run holds to
 * the same verdicts and words; the hidden ones, which npm test never runs, in process with the
 * suite's own pieces): each bug loses points on its own function only, and is diagnosed as its own
 * mistake on at least one of its failing cases and never as another. (selftest/diagnosis.test.ts
 * holds the correct solutions in process, where a diagnosis can be asked of an output that passed.)
 */
import { describe, expect, it } from 'vitest';
import type { SubmissionResult } from '../../lib/model/result';
import { GRADED_CASES, type GradedCase, type GradedFunction } from '../../tests/cases';
import { MISTAKES } from '../../tests/diagnosis/catalogue';
import { HARNESS_CAUSES } from '../../lib/diagnosis/explain';
import { BUGS, ownMistake, type CatalogueEntry } from '../catalogue';

/** A case's ending as the checks below read it. */
export interface Claim {
  graded: GradedCase;
  passed: boolean;
  message: string;
  diagnosis?: { mistake: string; message: string };
}

/** Each visible test's ending in npm test: passed, and the diagnosis its failure names, if any. */
export type Ending = { passed: boolean; diagnosis?: string };

export interface CatalogueRuns {
  /** The grader's result for an entry, its visible cases graded. */
  graded(name: string): Promise<SubmissionResult>;
  /** npm test's endings for an entry, by test name. */
  tested(name: string): Promise<Record<string, Ending>>;
  /** Its hidden cases, graded in process. */
  hidden(entry: CatalogueEntry): Promise<Claim[]>;
}

const caseOf = new Map(GRADED_CASES.map((c) => [c.name, c]));
/** The grader's endings as claims. */
export const claimsOf = (result: SubmissionResult): Claim[] =>
  result.cases.map((c) => ({ graded: caseOf.get(c.name)!, passed: c.status === 'passed', message: c.reason, ...(c.diagnosis && { diagnosis: c.diagnosis }) }));

const bug = (name: string): CatalogueEntry => BUGS.find((b) => b.name === name)!;
const messageOf = (id: string) => MISTAKES.find((m) => m.id === id)!.message;
/** A diagnosis names several mistakes when their outputs coincide on the case ("a|b"), or when several show at once ("a+b"). */
const names = (mistake: string | undefined, id: string) => mistake?.split(/[|+]/).includes(id) ?? false;
/** What a failing test of `entry` may say: its own mistake, one its code also makes, or an observation checked true of it. */
const mayBeSaid = (entry: CatalogueEntry, r: { graded: { fn: GradedFunction } }, mistake: string) =>
  names(mistake, ownMistake(entry, r.graded.fn)!) || mistake.split(/[|+]/).every((id) => entry.mayAlsoSay?.includes(id) || entry.also?.includes(id));

/** Declares the catalogue's checks on `runs`. */
export function describeCatalogueClaims(runs: CatalogueRuns, limitMs: number): void {
  /** Every case of an entry, in the table's order: the visible ones as the grader ended them, the hidden ones in process. */
  const gradedClaims = async (entry: CatalogueEntry) => {
    const [visible, hidden] = await Promise.all([runs.graded(entry.name).then(claimsOf), runs.hidden(entry)]);
    const byName = new Map([...visible, ...hidden].map((c) => [c.graded.name, c]));
    return GRADED_CASES.map((c) => byName.get(c.name)!);
  };

  describe('each bug fails a test of its own function and no other', () => {
    it.concurrent.each(BUGS.map((e) => [e.name, e] as const))('%s', async (_, entry) => {
      const results = await gradedClaims(entry);
      const failedVisible = results.filter((r) => !r.passed && !r.graded.hidden);
      expect(failedVisible.length, `${entry.name} passes every visible test`).toBeGreaterThan(0);
      const unrelated = results.filter((r) => !r.passed && r.graded.fn !== entry.breaks && !(entry.breaksMultiHead && r.graded.fn === 'multihead_self_attention'));
      expect(unrelated.map((r) => `${r.graded.name}: ${r.message}`)).toEqual([]);
    }, limitMs);
  });

  describe('returning the probabilities instead of P V', () => {
    it('loses the points of both probability cases, visible and hidden', async () => {
      const results = await gradedClaims(bug('returns_probabilities'));
      const probability = results.filter((r) => r.graded.checks.includes('rows_sum_to_one'));
      expect(probability.map((r) => r.graded.name)).toEqual(['test_scaled_dot_product_attention_probabilities', 'test_4d_scaled_dot_product_attention_hidden']);
      expect(probability.filter((r) => r.passed)).toEqual([]);
    }, limitMs);
  });

  describe('each bug is diagnosed as its own mistake, and says nothing else', () => {
    it.concurrent.each(BUGS.filter((e) => !e.undiagnosed).map((e) => [e.name, e] as const))('%s', async (_, entry) => {
      const results = await gradedClaims(entry);
      const asItself = results.filter((r) => !r.passed && r.diagnosis?.mistake === ownMistake(entry, r.graded.fn));
      expect(asItself.length, `${entry.name} is never diagnosed as ${entry.mistake}`).toBeGreaterThan(0);
      // An observation is a claim too: one not listed as true of this bug is as wrong as another cause.
      const asAnother = results.filter((r) => r.diagnosis && !mayBeSaid(entry, r, r.diagnosis.mistake));
      expect(asAnother.map((r) => `${r.graded.name}: ${r.diagnosis!.mistake}`)).toEqual([]);
      // Every failure of a multi-head attention built on a broken attention function says so.
      const silent = results.filter((r) => !r.passed && entry.breaksMultiHead && r.graded.fn === 'multihead_self_attention' && r.diagnosis?.mistake !== ownMistake(entry, r.graded.fn));
      expect(silent.map((r) => r.graded.name)).toEqual([]);
    }, limitMs);
  });

  describe('a bug no probe confirms yet is named as no other bug', () => {
    // What a probe measured (an observation, a generic finding such as a constant factor) may be said.
    const specific = (id: string) => id.split(/[|+]/).some((part) => !MISTAKES.find((m) => m.id === part)?.generic && !HARNESS_CAUSES.find((c) => c.id === part)?.observation);
    it.concurrent.each(BUGS.filter((e) => e.undiagnosed).map((e) => [e.name, e] as const))('%s', async (_, entry) => {
      const results = await gradedClaims(entry);
      expect(results.filter((r) => !r.passed).length, `${entry.name} passes every test`).toBeGreaterThan(0);
      const named = results.filter((r) => r.diagnosis && specific(r.diagnosis.mistake));
      expect(named.map((r) => `${r.graded.name}: ${r.diagnosis!.mistake}`)).toEqual([]);
    }, limitMs);
  });

  describe('mistakes that break a premise of the probes: in the grader as in process, only their own diagnosis', () => {
    // Each once had a false claim said of it (issue 30): the probes' premises now speak first.
    const PREMISE_BUGS = ['v_reshaped_loop', 'denominator_not_reset', 'output_buffer_kept', 'mask_cached_by_shape', 'scale_cached_once', 'mhsa_kv_cache', 'running_max_from_zero', 'zero_row_key0_masked', 'mask_inverted_in_place'];
    /** The same code on the same inputs in the same order: the same words, locations included. */
    const DETERMINISTIC = ['v_reshaped_loop', 'denominator_not_reset', 'running_max_from_zero', 'zero_row_key0_masked'];

    it.concurrent.each(PREMISE_BUGS)('%s', async (name) => {
      const entry = bug(name);
      // The visible cases, those npm test runs in process.
      const failed = (await gradedClaims(entry)).filter((r) => !r.passed && !r.graded.hidden);
      expect(failed.filter((r) => r.diagnosis?.mistake === ownMistake(entry, r.graded.fn)).length, `${name} is never named`).toBeGreaterThan(0);
      const wrong = failed.filter((r) => r.diagnosis && !mayBeSaid(entry, r, r.diagnosis.mistake));
      expect(wrong.map((r) => `${r.graded.name}: ${r.diagnosis!.mistake}`)).toEqual([]);
      if (!DETERMINISTIC.includes(name)) return;
      const tested = await runs.tested(name);
      const words = (list: { name: string; message?: string }[]) => Object.fromEntries(list.map((c) => [c.name, c.message]));
      expect(words(failed.map((r) => ({ name: r.graded.name, message: r.diagnosis?.message })))).toEqual(
        words(Object.entries(tested).filter(([, ending]) => !ending.passed).map(([test, ending]) => ({ name: test, message: ending.diagnosis }))));
    }, limitMs);
  });

  describe('the evidence says which weights the probe transposed', () => {
    it.concurrent.each([
      ['projection_not_transposed', 'With all four weights transposed'],
      ['output_projection_not_transposed', 'With only oProj transposed'],
    ])('%s', async (name, evidence) => {
      const results = await gradedClaims(bug(name));
      const named = results.filter((r) => r.diagnosis?.mistake === 'projection_not_transposed');
      expect(named.length).toBeGreaterThan(0);
      expect(named.filter((r) => !r.diagnosis!.message.includes(evidence)).map((r) => r.graded.name)).toEqual([]);
    }, limitMs);
  });

  describe('both ways of running the suite show the diagnosis', () => {
    it.concurrent.each([
      ['scale_missing', 'test_scaled_dot_product_attention', 'failed', 'scale_missing'],
      ['k_not_transposed', 'test_scaled_dot_product_attention', 'error', 'k_not_transposed'],
      ['fully_masked_nan', 'test_scaled_dot_product_attention_fully_masked_rows', 'failed', 'fully_masked_nan'],
      ['batch_first_only_loop', 'test_5d_scaled_dot_product_attention', 'failed', 'batch_first_only'],
      ['mhsa_on_broken_attention', 'test_multihead_self_attention_causal', 'failed', 'attention_broken'],
      ['heads_interleaved_loop', 'test_multihead_self_attention', 'failed', 'heads_interleaved'],
    ])('the grader (a child runs the code): %s', async (name, test, status, mistake) => {
      const result = await runs.graded(name);
      const graded = result.cases.find((c) => c.name === test)!;
      expect(graded.status).toBe(status);
      expect(graded.diagnosis?.mistake).toBe(mistake);
      expect(graded.diagnosis?.message.startsWith(messageOf(mistake))).toBe(true);
      expect(graded.reason.startsWith(`${graded.diagnosis?.message} — `)).toBe(true);
    }, limitMs);
  });
}
