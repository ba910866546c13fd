/**
 * causalMask sends SIGKILL to its parent process, the grader. The grader must survive (the child
 * may not signal it), finish grading, report causalMask's tests as errors or crashes, and keep the
 * other functions' points.
 */
export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(): never {
  process.kill(process.ppid, 'SIGKILL');
  throw new Error(`sent SIGKILL to the grader (pid ${process.ppid}) and lived`);
}
