import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import type { CaseResult, SubmissionResult } from '../model/result';
import { toGradescope } from './gradescope';
import { caseResult, submission as sampleSubmission } from './sampleResults';

const schema: object = JSON.parse(fs.readFileSync(path.join(__dirname, 'gradescope.schema.json'), 'utf8'));
// Strict, so a slip in the schema fails here instead of being logged; strictRequired stays off
// because the spec's rule (a score at the top or on every test) names score in anyOf branches.
const validate = new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(schema);

const submission = (cases: CaseResult[], over: Partial<SubmissionResult> = {}) => sampleSubmission('student', cases, over);

function expectValid(doc: unknown): void {
  const ok = validate(doc);
  expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
  expect(ok).toBe(true);
}

const mixed = submission([
  caseResult('test_softmax_last_dim', { fn: 'softmax', maxPoints: 0.25 }),
  caseResult('test_scaled_dot_product_attention', { status: 'failed', maxPoints: 1,
    reason: '12 of 3072 values differ; first at [0, 2, 5]: expected 0.25, got 0.5',
    details: 'max abs error 0.25 > tolerance 2.6e-5', output: 'debug: scores computed\n' }),
  caseResult('test_causal_mask', { fn: 'causal_mask', status: 'not_implemented',
    reason: 'causalMask is not implemented yet: edit student/index.ts' }),
  caseResult('test_multihead_self_attention', { fn: 'multihead_self_attention', status: 'timeout', maxPoints: 2,
    reason: 'killed after 10 s: an endless loop?' }),
  caseResult('test_multihead_self_attention_causal', { fn: 'multihead_self_attention', status: 'crashed', maxPoints: 2,
    reason: 'the process ran out of memory' }),
  caseResult('test_4d_scaled_dot_product_attention', { status: 'refused', maxPoints: 1,
    reason: "imports 'child_process', which submissions may not use" }),
  caseResult('test_5d_scaled_dot_product_attention', { status: 'error', reason: 'TypeError: x.shape is undefined' }),
]);

describe('toGradescope', () => {
  it('a thrown Error reads once: "Error: oops", not "Error: Error: oops"', () => {
    const doc = toGradescope(submission([
      caseResult('test_softmax_last_dim', { fn: 'softmax', status: 'error', reason: 'Error: oops' }),
      caseResult('test_causal_mask', { fn: 'causal_mask', status: 'error', reason: 'TypeError: x is undefined' }),
    ]));
    expect(doc.tests.map((t) => t.output)).toEqual(['Error: oops', 'Error: TypeError: x is undefined']);
  });

  it('all passed: full score, every test passed and visible', () => {
    const result = submission([
      caseResult('test_softmax_last_dim', { fn: 'softmax', maxPoints: 0.25 }),
      caseResult('test_causal_mask', { fn: 'causal_mask' }),
    ]);
    const doc = toGradescope(result);
    expectValid(doc);
    expect(doc).toEqual({
      score: 0.75,
      max_score: 0.75,
      execution_time: 1.23,
      output: 'Score 0.75/0.75: 2 of 2 tests passed.',
      output_format: 'text',
      test_output_format: 'text',
      tests: [
        { name: 'test_softmax_last_dim', number: '1', score: 0.25, max_score: 0.25, status: 'passed',
          output: 'Passed', tags: ['softmax'], visibility: 'visible' },
        { name: 'test_causal_mask', number: '2', score: 0.5, max_score: 0.5, status: 'passed',
          output: 'Passed', tags: ['causal_mask'], visibility: 'visible' },
      ],
      extra_data: {
        submission_status: 'graded', max_score: 0.75,
        cases: { test_softmax_last_dim: 'passed', test_causal_mask: 'passed' },
        diagnoses: {},
      },
    });
  });

  it('the notes are in the output once; a submission that could not run keeps its reason for the gradebook', () => {
    const notes = ['Type errors (no points): …', 'second note'];
    const graded = toGradescope(submission([caseResult('test_causal_mask', { fn: 'causal_mask' })], { feedback: notes }));
    expect(JSON.stringify(graded).split('second note')).toHaveLength(2);
    expect(graded.extra_data.reason).toBeUndefined();
    const broken = toGradescope(submission([caseResult('test_causal_mask', { fn: 'causal_mask', status: 'error', points: 0 })], { status: 'error', feedback: ['', 'no index.ts here\nmore'] }));
    expect(broken.extra_data.reason).toBe('no index.ts here');
  });

  it('a late penalty: the score is what is left, the output and extra_data say what was taken', () => {
    const late = { submitted_at: '2026-12-03T00:59:00.000Z', source: 'commit' as const, due: '2026-12-01T23:59:00.000Z', late_ms: 25 * 3_600_000, before: 0.5, penalty: 0.1, note: '1 day 1 h late (2 days at 10% a day): −0.1 points' };
    const doc = toGradescope(submission([caseResult('test_causal_mask', { fn: 'causal_mask' })], { score: 0.4, late }));
    expectValid(doc);
    expect(doc.score).toBe(0.4);
    expect(doc.extra_data.late).toEqual(late);
    expect(doc.output).toBe('Score 0.4/0.5: 1 of 1 tests passed.\nLate policy: 1 day 1 h late (2 days at 10% a day): −0.1 points; score 0.4/0.5 after it.');
  });

  it('mixed statuses: only passed is passed; our status, reason, details and printed output are in the text', () => {
    const doc = toGradescope(mixed);
    expectValid(doc);
    expect(doc.tests.map((t) => t.status)).toEqual(['passed', 'failed', 'failed', 'failed', 'failed', 'failed', 'failed']);
    expect(doc.score).toBe(0.25);
    expect(doc.tests.reduce((s, t) => s + t.max_score, 0)).toBe(mixed.maxScore);
    expect(doc.tests[1].output).toBe(
      'Failed: 12 of 3072 values differ; first at [0, 2, 5]: expected 0.25, got 0.5\n\n' +
        'max abs error 0.25 > tolerance 2.6e-5\n\nWhat your code printed:\ndebug: scores computed\n',
    );
    expect(doc.tests[3].output).toBe('Timed out: killed after 10 s: an endless loop?');
    expect(doc.tests[4].output).toBe('Crashed: the process ran out of memory');
    expect(doc.tests[5].output).toMatch(/^Not run: imports 'child_process'/);
    expect(doc.output).toBe(
      'Score 0.25/7.25: 1 of 7 tests passed (1 test not implemented, 1 test ended in an error, 1 test timed out, 1 test crashed, 1 test refused).',
    );
    expect(doc.extra_data.cases).toEqual({
      test_softmax_last_dim: 'passed', test_scaled_dot_product_attention: 'failed', test_causal_mask: 'not_implemented',
      test_multihead_self_attention: 'timeout', test_multihead_self_attention_causal: 'crashed',
      test_4d_scaled_dot_product_attention: 'refused', test_5d_scaled_dot_product_attention: 'error',
    });
  });

  it('extra_data names each diagnosed case\'s mistake; heatmaps stay out of the file', () => {
    const result = submission([
      caseResult('test_scaled_dot_product_attention', { status: 'failed', reason: 'Your output equals … — 3072 values off',
        diagnosis: { mistake: 'scale_missing', message: 'Your output equals …' } }),
      caseResult('test_scaled_dot_product_attention_fully_masked_rows', { status: 'failed', reason: 'row 3 is off',
        diagnosis: { mistake: 'fully_masked_uniform|mask_minus_100', message: 'Your output fits 2 known mistakes.' } }),
      caseResult('test_causal_mask', { fn: 'causal_mask', status: 'failed', reason: '1 of 25 values differ' }),
    ]);
    const expected = { rows: 1, cols: 1, data: Float64Array.of(1) };
    const doc = toGradescope({ ...result, heatmaps: new Map([['test_scaled_dot_product_attention', { batchIndex: [0], hidden: false, expected }]]) });
    expectValid(doc);
    expect(doc.extra_data.diagnoses).toEqual({
      test_scaled_dot_product_attention: 'scale_missing',
      test_scaled_dot_product_attention_fully_masked_rows: 'fully_masked_uniform|mask_minus_100',
    });
    expect(doc).toEqual(toGradescope(result));
  });

  it('hidden cases are shown after grades are published, visible ones always', () => {
    const doc = toGradescope(submission([
      caseResult('test_softmax_last_dim', { fn: 'softmax' }),
      caseResult('test_softmax_hidden', { fn: 'softmax', hidden: true, status: 'failed', reason: 'row 3 sums to 2' }),
    ]));
    expectValid(doc);
    expect(doc.tests.map((t) => t.visibility)).toEqual(['visible', 'after_published']);
  });

  it('a submission that could not run: score 0, no tests, the feedback says why', () => {
    const doc = toGradescope(submission([], {
      status: 'error', maxScore: 12, executionTimeMs: 80,
      feedback: ['student/index.ts has 2 type errors:', "index.ts(3,7): Type 'string' is not assignable to type 'number'."],
    }));
    expectValid(doc);
    expect(doc.score).toBe(0);
    expect(doc.tests).toEqual([]);
    expect(doc.execution_time).toBe(0.08);
    expect(doc.output).toBe(
      'Your submission could not be run, so no test was graded.\nstudent/index.ts has 2 type errors:\n' +
        "index.ts(3,7): Type 'string' is not assignable to type 'number'.",
    );
    expect(doc.extra_data).toMatchObject({ submission_status: 'error', max_score: 12, cases: {} });
  });

  it('submission-level feedback comes after the score line', () => {
    const doc = toGradescope(submission([caseResult('test_causal_mask')], { feedback: ['helper.ts is unused'] }));
    expect(doc.output).toBe('Score 0.5/0.5: 1 of 1 tests passed.\nhelper.ts is unused');
  });

  it('survives a JSON round trip unchanged (no undefined, NaN or functions)', () => {
    const doc = toGradescope(mixed);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });
});

describe('gradescope.schema.json', () => {
  const good = (): Record<string, unknown> => JSON.parse(JSON.stringify(toGradescope(mixed)));
  const errorsOf = (doc: unknown): string[] => {
    expect(validate(doc)).toBe(false);
    return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };

  it('accepts a score on every test instead of a top-level score, as the spec allows', () => {
    const doc = good();
    delete doc.score;
    expectValid(doc);
  });

  it('rejects a document with no score at the top or on a test', () => {
    const doc = good();
    delete doc.score;
    delete (doc.tests as Record<string, unknown>[])[2].score;
    expect(errorsOf(doc)).toContain("/tests/2 must have required property 'score'");
  });

  it('rejects a test status other than passed or failed', () => {
    const doc = good();
    (doc.tests as Record<string, unknown>[])[3].status = 'timeout';
    expect(errorsOf(doc)).toContain('/tests/3/status must be equal to one of the allowed values');
  });

  it('rejects an unknown visibility', () => {
    const doc = good();
    (doc.tests as Record<string, unknown>[])[0].visibility = 'after_publish';
    expect(errorsOf(doc)).toContain('/tests/0/visibility must be equal to one of the allowed values');
  });

  it('rejects negative points, a bad output format and a misspelt key', () => {
    const doc = good();
    (doc.tests as Record<string, unknown>[])[0].max_score = -1;
    doc.output_format = 'markdown';
    doc.max_scroe = 12;
    expect(errorsOf(doc)).toEqual(expect.arrayContaining([
      '/tests/0/max_score must be >= 0',
      '/output_format must be equal to one of the allowed values',
      ' must NOT have additional properties',
    ]));
  });
});
