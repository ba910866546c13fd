/**
 * A fixed sample of `npm run audit:diagnosis` (selftest/audit/): mutants of the audited correct
 * solutions, among them every one a claim once did not fit, graded and diagnosed as the audit
 * grades them (the grader's own code, in process). Every claim said of each must fit its truth
 * (selftest/audit/fits.ts): a wrong claim that returns is caught here, not only by the next audit.
 */
import { describe, expect, it } from 'vitest';
import { fits } from './audit/fits';
import { mutantsOf, type Mutant } from './audit/mutants';
import { gradeMutant } from './audit/run';
import type { SampleEntry } from './audit/sample';
import { loadCaseFixtures } from '../lib/grading/grade';
import { PER_TEST_LIMIT_MS } from '../lib/grading/hangWords';
import { ASSIGNMENT } from '../tests/assignment';
import { GRADED_CASES } from '../tests/cases';
import { AUDITED } from './catalogue';
import sample from './catalogue/auditSample.json';

const fixtures = loadCaseFixtures(ASSIGNMENT, GRADED_CASES);
const generated = new Map<string, Promise<Mutant[]>>();
const mutantsFor = (solution: string) => {
  const entry = AUDITED.find((e) => e.name === solution)!;
  if (!generated.has(solution)) generated.set(solution, mutantsOf({ name: solution, entry: entry.file }));
  return generated.get(solution)!;
};

describe('a fixed sample of the diagnosis audit: every claim fits its mutant', () => {
  it.each((sample as SampleEntry[]).map((s) => [`${s.solution}/${s.file}:${s.line} ${s.operator} (${s.why})`, s] as const))('%s', async (_, s) => {
    const mutant = (await mutantsFor(s.solution)).find((m) => m.id === s.id);
    expect(mutant, `no longer generated (its lines or an operator changed): draw the sample again with npm run audit:diagnosis -- --write-sample`).toBeDefined();
    const entry = AUDITED.find((e) => e.name === s.solution)!.file.endsWith('index.ts') ? 'index.ts' : mutant!.file;
    const result = await gradeMutant(ASSIGNMENT, mutant!.files, entry, s.solution, GRADED_CASES, fixtures, PER_TEST_LIMIT_MS);
    if (typeof result === 'string') throw new Error(result);
    expect(result.filter((c) => c.status !== 'passed').length, 'it fails a test, as when it was drawn').toBeGreaterThan(0);
    const truth = { operator: mutant!.operator, parts: mutant!.parts, attentionFails: result.some((c) => c.fn === 'scaled_dot_product_attention' && c.status !== 'passed') };
    expect(result.filter((c) => c.mistake && !fits(c.mistake, truth)).map((c) => `${c.name}: ${c.mistake}`)).toEqual([]);
  });
});
