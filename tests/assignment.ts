/**
 * This assignment as the harness is handed it (lib/assignment/assignment.ts): the functions as
 * adapters/functions.ts declares them, the case table of cases.ts, and what the assignment knows
 * that the harness does not. Every entry point (npm test's suite, the scripts, the Gradescope
 * autograder) loads this and passes it to lib/.
 */
import path from 'node:path';
import { FUNCTIONS } from '../adapters/functions';
import type { Assignment } from '../lib/assignment/assignment';
import type { NonFiniteHint } from '../lib/assignment/returns';
import { broadcastOffset } from '../lib/compare';
import { unravelIndex } from '../lib/format';
import type { Tensor } from '../lib/tensor';
import { GRADED_CASES } from './cases';

/**
 * What the mask shows about a non-finite attention output: a fully masked row (0/0). Any other
 * cause is for the diagnosis to find, from evidence rather than a guess.
 */
function fullyMaskedRow(mask: Tensor | undefined): NonFiniteHint | undefined {
  if (!mask) return undefined;
  return (flat, shape) => {
    const index = unravelIndex(flat, shape);
    const keys = mask.shape[mask.ndim - 1];
    for (let k = 0; k < keys; k++) {
      index[index.length - 1] = k;
      if (mask.data[broadcastOffset(mask.shape, index)] !== 0) return '';
    }
    return 'Every key of this query is masked: such a row must output zeros (softmax over all −∞ is 0/0 = NaN).';
  };
}

export const ASSIGNMENT: Assignment = {
  name: 'attention',
  root: path.resolve(__dirname, '..'),
  functions: FUNCTIONS,
  cases: GRADED_CASES,
  nonFiniteHint: (fn, inputs) => (fn === 'scaled_dot_product_attention' ? fullyMaskedRow(inputs.mask) : undefined),
};
