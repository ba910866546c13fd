/**
 * The reference's softmax and causal mask with one known mistake applied (ids from
 * lib/diagnosis/catalogue.ts). The fixture generator runs each on every case of its function, in
 * float64, and stores the finite outputs that differ from the expected one: these mistakes change
 * the output in one fixed way, so a failing output is compared with them (attention and multi-head
 * mistakes are found by probing instead). Never shipped to students.
 */
import { Tensor } from '../lib/tensor';
import * as reference from './index';
import { softmax } from './index';

/** The reference's exports: a variant replaces one of them. */
export type Implementation = typeof reference;

const causalWith =
  (keep: (key: Tensor, query: Tensor) => Tensor): Implementation['causalMask'] =>
  (seqLen) => keep(Tensor.arange(seqLen).reshape(1, seqLen), Tensor.arange(seqLen).reshape(seqLen, 1));

/** Each mistake's variant: the one graded function it changes, by its export. */
export const MISTAKE_VARIANTS: Record<string, Partial<Implementation>> = {
  softmax_wrong_dim: { softmax: (x) => softmax(x, -1) },
  softmax_whole_tensor: {
    softmax: (x, dim) => {
      const e = x.sub(x.max(dim, true)).exp();
      return e.div(e.sum());
    },
  },
  softmax_global_max: {
    softmax: (x, dim) => {
      const e = x.sub(x.max()).exp();
      return e.div(e.sum(dim, true));
    },
  },
  softmax_unstable: {
    softmax: (x, dim) => {
      const e = x.exp();
      return e.div(e.sum(dim, true));
    },
  },

  causal_off_by_one: { causalMask: causalWith((key, query) => key.lt(query)) },
  causal_upper: { causalMask: causalWith((key, query) => key.ge(query)) },
};
