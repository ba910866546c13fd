/**
 * The audit's fixed sample for the self-tests (selftest/diagnosisAudit.test.ts): every mutant some
 * claim did not fit in an audit (kept from one drawing to the next while it is still generated),
 * and a spread of the others, a few of each operator, so that a wrong claim that returns is caught
 * without running the whole audit.
 */
import type { MutantRecord } from './audit';
import { fits } from './fits';

export interface SampleEntry {
  solution: string;
  id: string;
  operator: string;
  file: string;
  line: number;
  code: string;
  /** Why it is in the sample: a claim that once did not fit it, or the spread. */
  why: string;
}

/** Mutants of each operator in the spread. */
const PER_OPERATOR = 1;

export function drawSample(records: readonly MutantRecord[], previous: readonly SampleEntry[]): SampleEntry[] {
  const entry = (r: MutantRecord, why: string): SampleEntry => ({ solution: r.solution, id: r.id, operator: r.operator, file: r.file, line: r.line, code: r.code.slice(0, 120), why });
  const byId = new Map(records.map((r) => [r.id, r]));
  const sample = new Map<string, SampleEntry>();
  // A run of a sample or of some operators keeps what it did not grade: it cannot say they are gone.
  for (const old of previous) {
    if (!byId.has(old.id)) sample.set(old.id, old);
    else if (byId.get(old.id)!.status === 'killed') sample.set(old.id, { ...entry(byId.get(old.id)!, old.why) });
  }
  for (const r of records) {
    if (r.status !== 'killed') continue;
    const truth = { operator: r.operator, parts: r.parts as never, attentionFails: r.failed!.some((c) => c.fn === 'scaled_dot_product_attention') };
    const wrong = r.failed!.find((c) => c.mistake && !fits(c.mistake, truth));
    if (wrong && !sample.has(r.id)) sample.set(r.id, entry(r, `${wrong.mistake} was said of it (${wrong.name})`));
  }
  const taken = new Map<string, number>();
  for (const r of records) {
    if (r.status !== 'killed' || sample.has(r.id) || (taken.get(r.operator) ?? 0) >= PER_OPERATOR) continue;
    // Mutants that hang cost a time limit per call: the spread leaves them to the audit.
    if (r.failed!.some((c) => c.status === 'timeout')) continue;
    taken.set(r.operator, (taken.get(r.operator) ?? 0) + 1);
    sample.set(r.id, entry(r, 'spread'));
  }
  return [...sample.values()];
}
