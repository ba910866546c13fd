/**
 * The verdict on what a call returned, the same in both paths: the grader judges the value its
 * child sent (verdict.ts), `npm test` the value its own call returned (tests/graded.test.ts). Runs
 * where points are decided; values are checked by evaluate.ts.
 */
import { readResult } from '../../adapters';
import { NonFiniteResult, ResultError } from '../errors';
import type { GradedCase } from '../../tests/cases';
import { evaluateCase } from './evaluate';
import type { LoadedFixture } from '../model/fixtures';
import type { CaseVerdict } from './verdict';

/** What the function returned is not a tensor, or not a finite one: adapters/normalise.ts said why, in the child or here. */
export function unreadable(message: string): CaseVerdict {
  return { status: 'error', reason: message, details: '', evidence: { kind: 'unreadable', name: 'ResultError', message } };
}

/** Its values checked, or, when only its shape was read (lib/model/invoke.ts judgedByShape), that shape. */
export function judgeValue(graded: GradedCase, value: { shape: readonly number[]; data?: unknown }, fixture: LoadedFixture): CaseVerdict {
  if (value.data === undefined) {
    // The shape check comes first and alone reads no values (evaluate.ts): the same words as for any wrong shape.
    const [first, ...rest] = evaluateCase(graded, { shape: value.shape, data: [] }, fixture).message.split('\n');
    return { status: 'failed', reason: first, details: rest.join('\n') };
  }
  let output;
  try {
    output = readResult(graded.fn, value, fixture.inputs.mask);
  } catch (err) {
    if (!(err instanceof ResultError)) throw err;
    if (err instanceof NonFiniteResult) return { ...unreadable(err.message), status: 'failed' };
    return unreadable(err.message);
  }
  const verdict = evaluateCase(graded, output, fixture);
  if (verdict.passed) return { status: 'passed', reason: '', details: '' };
  const [first, ...rest] = verdict.message.split('\n');
  return { status: 'failed', reason: first, details: rest.join('\n'), evidence: { kind: 'output', output } };
}
