/**
 * Correct and slow: softmax spends 1 s of CPU before each answer. Its six visible tests take 6 s
 * of its 15 s share of the budget; for the sixth, what is left of the share is less than the
 * per-test limit, and a fraction of a ms (node:vm refused such a limit in npm test). The wait is
 * counted in CPU time, as both paths charge a call, so that load does not stretch it; npm test's
 * watchdog counts wall time (node:vm knows no other clock), and 1 s of CPU fits its 10 s until
 * the machine gives the call less than a tenth of a core.
 */
import type { Tensor } from '../../../lib/tensor';
import { softmax as correct } from './base';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

const SLOW_MS = 1000;

/** This thread's CPU ms: the child runs code in one thread, npm test runs several submissions in one process. */
function cpuMs(): number {
  const own = process as unknown as { threadCpuUsage?: () => NodeJS.CpuUsage };
  const { user, system } = own.threadCpuUsage ? own.threadCpuUsage() : process.cpuUsage();
  return (user + system) / 1000;
}

export function softmax(x: Tensor, dim: number): Tensor {
  const until = cpuMs() + SLOW_MS;
  while (cpuMs() < until);
  return correct(x, dim);
}
