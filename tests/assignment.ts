/**
 * This assignment as the harness is handed it (lib/grading/assignment.ts): the functions as
 * adapters/functions.ts declares them, the case table of cases.ts, both of the parts switched on
 * (parts.ts), and what the assignment knows that the harness does not. Every entry point (npm
 * test's suite, the scripts, the Gradescope autograder) loads this and passes it to lib/.
 */
import path from 'node:path';
import { ALL_FUNCTIONS } from '../adapters/functions';
import type { Assignment } from '../lib/grading/assignment';
import { lazyModule } from '../lib/assignment/lazy';
import type { Diagnoser } from '../lib/diagnosis/explain';
import type { NonFiniteHint } from '../lib/assignment/returns';
import { broadcastOffset } from '../lib/compare';
import { unravelIndex } from '../lib/format';
import type { Tensor } from '../lib/tensor';
import { ALL_CASES } from './cases';
import { INPUTS_CHANGED_FIX } from './diagnosis/words';
import { inParts, ofParts, PARTS, PARTS_ON, releasedText } from './parts';

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

// The diagnosis's modules load at the first failure that asks: a passing npm test loads none.
const heatmaps = lazyModule<typeof import('./diagnosis/heatmaps')>(__dirname, 'diagnosis/heatmaps');
const carry = lazyModule<typeof import('./carryForward/carryForward')>(__dirname, 'carryForward/carryForward');

/** The assignment with the parts `on` graded (ids of parts.ts, in its order): ASSIGNMENT is the switch's; the self-tests build others. */
export const assignmentWith = (on: readonly string[]): Assignment => ({
  name: 'attention',
  studentCommands: [
    'npm ci                                  # set up (Node 22, 24 or 26: the LTS lines)',
    'npm test -- -t scaled_dot_product       # the attention tests against student/index.ts',
    'npm run grade                           # point totals of the visible tests',
  ],
  page: {
    title: 'Attention assignment',
    heatmaps: {
      heading: 'Attention probabilities of the failed attention tests',
      note: 'Attention probabilities are not part of the graded output, so your function was called once more per ' +
        'failed case, with V replaced by the identity (Q, K and the mask unchanged): its output is then the probability ' +
        'matrix. These calls award no points. Each heatmap shows the batch entry with a NaN, or else the one furthest ' +
        'from the expected ones; masked cells are crossed. Hover a cell for its value.' +
        (on.some((part) => ['weights', 'single_head'].includes(part))
          ? ' A function that returns its weights (attention, multiHeadAttention) was called once more with the failed case\'s own inputs: its heatmap is the weights it returned.'
          : ''),
      values: 'probabilities',
      rows: 'queries',
      cols: 'keys',
    },
  },
  root: path.resolve(__dirname, '..'),
  functions: ofParts(ALL_FUNCTIONS, on),
  cases: ALL_CASES.filter((c) => inParts(on, c.fn)),
  parts: {
    declared: PARTS,
    on,
    switchFile: 'tests/parts.ts',
    fixSwitch: (text) => releasedText(text, on),
  },
  nonFiniteHint: (fn, inputs) => (fn === 'scaled_dot_product_attention' || fn === 'attention' ? fullyMaskedRow(inputs.mask) : undefined),
  inputsChangedFix: INPUTS_CHANGED_FIX,
  carryForward: async (calls, graded, fixture, output) => (await carry()).carryForward(calls, graded, fixture, output),
  heatmap: async (probe, graded, fixture, instructorView) => (await heatmaps()).attentionHeatmap(probe, graded, fixture, instructorView),
  diagnosis: async () => (await lazyModule<{ DIAGNOSIS: Diagnoser }>(__dirname, 'diagnosis/index')()).DIAGNOSIS,
});

export const ASSIGNMENT: Assignment = assignmentWith(PARTS_ON);
