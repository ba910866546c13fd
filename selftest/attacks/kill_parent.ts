/**
 * causalMask sends SIGKILL to its parent process, the grader (in a PID namespace of its own its
 * parent is pid 0, and kill(0) is its whole process group: every classmate's child, unless each
 * child has a session of its own). The grader must survive (the child
 * may not signal it), finish grading, report causalMask's tests as errors or crashes, and keep the
 * other functions' points.
 */
export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(): never {
  process.kill(process.ppid, 'SIGKILL');
  throw new Error(`sent SIGKILL to the grader (pid ${process.ppid}) and lived`);
}
