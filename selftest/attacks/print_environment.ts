/**
 * causalMask throws an error holding the grader's environment variables, so that they land in the
 * student's feedback (results.json shows reasons and output to the student). Environments hold
 * tokens and keys (CI secrets, cloud credentials). The grader must not hand its environment to
 * student code: no feedback may contain a variable the self-test sets in the grader's process.
 * causalMask's tests are errors; the other functions keep their points.
 */
export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(): never {
  throw new Error(`the grader's environment: ${JSON.stringify(process.env)}`);
}
