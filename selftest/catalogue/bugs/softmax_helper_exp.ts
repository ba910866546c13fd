/** An exp-and-normalise helper in a file of its own, with no max subtracted. */
import type { Tensor } from '../../../lib/tensor';

export function normalisedExp(x: Tensor, dim: number): Tensor {
  const e = x.exp();
  return e.div(e.sum(dim, true));
}
