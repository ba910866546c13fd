/** A softmax over the last dim kept in a helper file, without subtracting the max. */
import type { Tensor } from '../../../lib/tensor';

export function rowSoftmax(x: Tensor): Tensor {
  const e = x.exp();
  return e.div(e.sum(-1, true));
}
