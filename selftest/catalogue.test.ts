import { describe, expect, it } from 'vitest';
import type { Submission } from '../adapters';
import { BUGS as ORDER_FREE_BUGS, CALL_DEPENDENT, CORRECT } from './catalogue';
import { gradeInProcess } from './gradeInProcess';

const load = async (file: string) => (await import(file)) as Partial<Submission>;
const BUGS = [...ORDER_FREE_BUGS, ...CALL_DEPENDENT];

describe('correct solutions written other ways get full marks (visible and hidden cases)', () => {
  it.each(CORRECT.map((e) => [e.name, e] as const))('%s', async (_, entry) => {
    const failed = (await gradeInProcess(await load(entry.file), entry.name)).filter((r) => !r.passed);
    expect(failed.map((r) => `${r.graded.name}: ${r.message}`)).toEqual([]);
  });
});

describe('each bug fails a test of its own function and no other', () => {
  it.each(BUGS.map((e) => [e.name, e] as const))('%s', async (_, entry) => {
    const results = await gradeInProcess(await load(entry.file), entry.name);
    const failedVisible = results.filter((r) => !r.passed && !r.graded.hidden);
    expect(failedVisible.length, `${entry.name} passes every visible test`).toBeGreaterThan(0);
    const unrelated = results.filter((r) => !r.passed && r.graded.fn !== entry.breaks && !(entry.breaksMultiHead && r.graded.fn === 'multihead_self_attention'));
    expect(unrelated.map((r) => `${r.graded.name}: ${r.message}`)).toEqual([]);
  });
});

describe('returning the probabilities instead of P V', () => {
  it('loses the points of both probability cases, visible and hidden', async () => {
    const entry = BUGS.find((b) => b.name === 'returns_probabilities')!;
    const results = await gradeInProcess(await load(entry.file), entry.name);
    const probability = results.filter((r) => r.graded.checks.includes('rows_sum_to_one'));
    expect(probability.map((r) => r.graded.name)).toEqual(['test_scaled_dot_product_attention_probabilities', 'test_4d_scaled_dot_product_attention_hidden']);
    expect(probability.filter((r) => r.passed)).toEqual([]);
  });
});
