/** A class holding the four weights, whose query and key projections read each other's weight. */
import type { Tensor } from '../../../lib/tensor';
import { mergeHeads, scaledDotProductAttention, splitHeads, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

class MultiHead {
  constructor(private readonly w: Weights, private readonly numHeads: number) {}

  private project(x: Tensor, weight: Tensor): Tensor {
    return splitHeads(x.matmul(weight.transpose(0, 1)), this.numHeads);
  }

  forward(x: Tensor, mask?: Tensor): Tensor {
    const queries = this.project(x, this.w.kProj);
    const keys = this.project(x, this.w.qProj);
    const values = this.project(x, this.w.vProj);
    return mergeHeads(scaledDotProductAttention(queries, keys, values, mask)).matmul(this.w.oProj.transpose(0, 1));
  }
}

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  return new MultiHead(w, numHeads).forward(x, mask);
}
