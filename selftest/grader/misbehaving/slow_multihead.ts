/**
 * Correct and slow: multiHeadSelfAttention spends 1.8 s of CPU before each answer. Its four visible
 * tests take 7.2 s of its 15 s share of the budget; after the third, what is left is less than the
 * per-test limit and a fraction of a ms (node:vm refused such a limit in npm test). The wait is
 * counted in CPU time, as both paths charge a call, so it holds on a loaded machine.
 */
import type { Tensor } from '../../../lib/tensor';
import { multiHeadSelfAttention as correct, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

const SLOW_MS = 1800;

/** This thread's CPU ms (the child has one thread that runs code; npm test runs several submissions in one process). */
function cpuMs(): number {
  const own = process as unknown as { threadCpuUsage?: () => NodeJS.CpuUsage };
  const { user, system } = own.threadCpuUsage ? own.threadCpuUsage() : process.cpuUsage();
  return (user + system) / 1000;
}

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const until = cpuMs() + SLOW_MS;
  while (cpuMs() < until);
  return correct(x, w, numHeads, mask);
}
