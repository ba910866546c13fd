/** Softmax is correct but spends 600 ms of CPU first: honest, and slow. */
import type { Tensor } from '../../../lib/tensor';
import { softmax as correct } from './base';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(x: Tensor, dim: number): Tensor {
  const start = process.cpuUsage();
  for (;;) {
    const spent = process.cpuUsage(start);
    if (spent.user + spent.system >= 600_000) break;
  }
  return correct(x, dim);
}
