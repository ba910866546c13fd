import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { CaseResult, CaseStatus, SubmissionResult } from '../model/result';
import { MISTAKES } from '../../tests/diagnosis/catalogue';

import { notRunAfterLoad } from '../model/notRun';
import { CauseBook, STATUS_CAUSES } from './causes';
import { toGradescope } from './gradescope';
import { caseResult, submission } from './sampleResults';

const BOOK = new CauseBook(MISTAKES);
const causeWords = (id: string) => BOOK.words(id);
const diagnosedCause = (mistake: string | undefined) => BOOK.diagnosed(mistake);
const testCauses = (results: Parameters<CauseBook['testCauses']>[0]) => BOOK.testCauses(results);
const tallyCauses = (graded: Parameters<CauseBook['tally']>[0]) => BOOK.tally(graded);

/** A case that did not pass, as the grader words each kind of failure (lib/grading/verdict.ts, grade.ts). */
const FAILURES: { cause: string; over: Partial<CaseResult> }[] = [
  { cause: 'syntax error', over: { status: 'error', reason: "the submission failed to load: syntax error at kemal/index.ts:3:9: ')' expected." } },
  { cause: 'syntax error', over: { status: 'error', reason: 'the submission failed to load: nesting too deep at kemal/deep.ts:1:204: more than 200 brackets and operators inside one another; simplify the code there (give inner parts names of their own)' } },
  { cause: 'load error', over: { status: 'error', reason: 'the submission failed to load: kemal/index.ts:2:22 imports "./helpers", which is not in your folder: add the file or fix the path' } },
  { cause: 'load error', over: { status: 'error', reason: 'the submission failed to load: Error: not ready' } },
  { cause: 'refused', over: { status: 'refused', reason: 'kemal/index.ts:1:16 imports "node:fs", which a submission may not use' } },
  { cause: 'not implemented', over: { status: 'not_implemented', reason: 'softmax is not implemented yet: edit student/index.ts' } },
  { cause: 'timeout', over: { status: 'timeout', reason: '`causalMask` did not return within 10 s, the time limit per test' } },
  { cause: 'crashed', over: { status: 'crashed', reason: 'the process running the submission died: it exited with code 3' } },
  { cause: 'error, no known cause', over: { status: 'error', reason: 'RangeError: no mask today' } },
  { cause: 'no known cause', over: { status: 'failed', reason: 'expected 0.25 at [0, 1], got 0.5' } },
];

const graded = (name: string, cases: CaseResult[], over: Partial<SubmissionResult> = {}) => ({ name, results: toGradescope(submission(name, cases, over)) });

describe('testCauses', () => {
  it.each(FAILURES)('$cause: $over.reason', ({ cause, over }) => {
    const { results } = graded('kemal', [caseResult('test_a'), caseResult('test_b', over)]);
    expect(testCauses(results)).toEqual(new Map([['test_b', [cause]]]));
  });

  it.each(FAILURES)('said once by the first test ($cause), the others naming it: each has its cause', ({ cause, over }) => {
    const after = { status: over.status, reason: notRunAfterLoad('test_a') };
    const { results } = graded('kemal', [caseResult('test_a', over), caseResult('test_b', after), caseResult('test_c', after)]);
    expect(testCauses(results)).toEqual(new Map(['test_a', 'test_b', 'test_c'].map((name) => [name, [cause]])));
  });

  it('a diagnosis names its mistakes, each once, whatever the status; passed and carried tests have none', () => {
    const { results } = graded('kemal', [
      caseResult('test_a', { status: 'failed', reason: 'x', diagnosis: { mistake: 'scale_missing|k_not_transposed', message: 'm' } }),
      caseResult('test_b', { status: 'error', reason: 'y', diagnosis: { mistake: 'attention_broken+attention_broken', message: 'm' } }),
      caseResult('test_c', { carried: true, reason: 'carried forward' }),
    ]);
    expect(testCauses(results)).toEqual(new Map([['test_a', ['scale_missing', 'k_not_transposed']], ['test_b', ['attention_broken']]]));
  });

  it('every finding of the catalogue: a cause is counted as one; an observation (what a probe saw) is not, and its test has no known cause', () => {
    for (const mistake of MISTAKES) {
      const { results } = graded('kemal', [caseResult('test_a', { status: 'failed', reason: mistake.message, diagnosis: { mistake: mistake.id, message: mistake.message } })]);
      expect(testCauses(results).get('test_a'), mistake.id).toEqual(mistake.observation ? ['no known cause'] : [mistake.id]);
      expect(tallyCauses([{ name: 'kemal', results }]).map((c) => c.id), mistake.id).toEqual(mistake.observation ? ['no known cause'] : [mistake.id]);
    }
    const observation = MISTAKES.find((m) => m.observation)!.id;
    const cause = MISTAKES.find((m) => !m.observation && m.fn === 'scaled_dot_product_attention')!.id;
    for (const [diagnosis, left] of [[`${observation}|${cause}`, cause], [`${cause}+${observation}`, cause], [`${observation}+${observation}`, undefined]] as const) {
      expect(diagnosedCause(diagnosis), diagnosis).toBe(left);
    }
  });

  it('a submission that could not be run at all is not gradable, every test of it', () => {
    const cases = ['test_a', 'test_b'].map((n) => caseResult(n, { status: 'error', reason: 'kemal holds no index.ts' }));
    expect([...testCauses(graded('kemal', cases, { status: 'error' }).results).values()]).toEqual([['not gradable'], ['not gradable']]);
  });

  it('every cause has words: the catalogue\'s or the status\'s', () => {
    for (const id of [...MISTAKES.map((m) => m.id), ...Object.keys(STATUS_CAUSES)]) expect(causeWords(id), id).not.toBe('');
    // No status cause can be taken for a mistake of the catalogue.
    for (const id of Object.keys(STATUS_CAUSES)) expect(MISTAKES.some((m) => m.id === id), id).toBe(false);
  });
});

describe('tallyCauses', () => {
  it('a random batch: every test not passed counted once per cause, most submissions first, then most tests', () => {
    const random = seedrandom('causes');
    const statuses: CaseStatus[] = ['passed', 'failed', 'error', 'timeout', 'crashed', 'not_implemented', 'refused'];
    const batch = Array.from({ length: 60 }, (_, s) => graded(`s${s}`, Array.from({ length: 8 }, (_, t) => {
      const status = statuses[Math.floor(random() * statuses.length)];
      const diagnosed = status === 'failed' && random() < 0.5;
      return caseResult(`test_${t}`, { status, reason: status === 'passed' ? '' : 'why',
        ...(diagnosed && { diagnosis: { mistake: random() < 0.5 ? 'scale_missing' : 'mask_inverted|scale_missing', message: 'm' } }) });
    })));
    const tally = tallyCauses(batch);
    const expected = new Map<string, { submissions: Set<string>; tests: number }>();
    for (const { name, results } of batch) {
      for (const [test, status] of Object.entries(results.extra_data.cases)) {
        if (status === 'passed') continue;
        const diagnosis = results.extra_data.diagnoses[test];
        const ids = diagnosis ? diagnosis.split('|') : [FAILURES.find((f) => f.over.status === status && (status !== 'error' || f.cause === 'error, no known cause'))!.cause];
        for (const id of ids) {
          const entry = expected.get(id) ?? { submissions: new Set(), tests: 0 };
          entry.submissions.add(name);
          entry.tests++;
          expected.set(id, entry);
        }
      }
    }
    expect(Object.fromEntries(tally.map((c) => [c.id, [c.submissions.length, c.tests]])))
      .toEqual(Object.fromEntries([...expected].map(([id, e]) => [id, [e.submissions.size, e.tests]])));
    for (let i = 1; i < tally.length; i++) {
      const [a, b] = [tally[i - 1], tally[i]];
      expect(a.submissions.length > b.submissions.length || (a.submissions.length === b.submissions.length && a.tests >= b.tests), `${a.id} before ${b.id}`).toBe(true);
    }
  });

  it('a knock-on is marked as one', () => {
    const tally = tallyCauses([graded('kemal', [caseResult('test_a', { status: 'failed', reason: 'x', diagnosis: { mistake: 'attention_broken', message: 'm' } })])]);
    expect(tally.map((c) => [c.id, c.knockOn])).toEqual([['attention_broken', true]]);
  });
});
