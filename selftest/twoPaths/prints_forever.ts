/**
 * Softmax that prints in an endless loop: a flood of output, and a hang. Both paths stop it at the
 * time limit and say both (printing past the cap costs almost nothing, so the loop, not the
 * printing, is what runs out the limit).
 */
import type { Tensor } from '../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(x: Tensor): Tensor {
  for (let row = 0; ; row++) {
    console.log(`row ${row}`, x.shape);
    if (row < 0) return x;
  }
}
