/**
 * softmax prints 100 MB (1 MiB chunks, half to stdout, half to stderr) and then answers correctly.
 * The grader must keep a capped excerpt of the output per test, stay responsive, and give full
 * marks: printing is not a reason to lose points.
 */
import type { Tensor } from '../../lib/tensor';
import { softmax as correct } from './base';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

const CHUNK = 'x'.repeat(1024 * 1024);

export function softmax(x: Tensor, dim: number): Tensor {
  for (let i = 0; i < 50; i++) {
    console.log(CHUNK);
    console.error(CHUNK);
  }
  return correct(x, dim);
}
