/**
 * How each graded function is called, as data the harness is handed (lib/assignment/functions.ts):
 * its export, its arguments from a case's inputs and params, what it returns and the shape that
 * must have. The grader's child receives these with the submission, npm test calls through them,
 * and the README's function table is made from them: those of the parts switched on.
 */
import type { FunctionSpec } from '../lib/assignment/functions';
import { ofParts, PARTS_ON } from '../tests/parts';
import { GRADIENT_FUNCTIONS } from './gradients';

/** The promised output shape: the input's own (softmax, multi-head attention). */
const sameAs = (input: string) => ({ lead: { inputs: [input], keep: 0 }, dims: [] });

/** nn.Linear's weight and bias per projection: `qProj` and `qBias` from the inputs q_proj and q_bias, and so on. */
const biased = (projections: readonly string[]) =>
  Object.fromEntries(projections.flatMap((p) => [[`${p}Proj`, { input: `${p}_proj` }], [`${p}Bias`, { input: `${p}_bias` }]]));

/** Every function of every part (tests/parts.ts), whether the switch grades it or not. */
export const ALL_FUNCTIONS: readonly FunctionSpec[] = [
  {
    id: 'softmax',
    export: 'softmax',
    /** x [...], softmax along `dim` → the same shape. */
    args: [{ name: 'x', input: 'x' }, { name: 'dim', param: 'dim' }],
    returns: { tuple: false, part: { name: 'softmax', kind: 'float', shape: sameAs('x') } },
    signature: '`softmax(x, dim)`',
    summary: 'softmax along `dim`, stable for large inputs',
    short: 'softmax',
  },
  {
    id: 'scaled_dot_product_attention',
    export: 'scaledDotProductAttention',
    /** Q [...batch, queries, dK], K [...batch, keys, dK], V [...batch, keys, dV], mask broadcastable to [...batch, queries, keys] → [...batch, queries, dV]. */
    args: [{ name: 'Q', input: 'q' }, { name: 'K', input: 'k' }, { name: 'V', input: 'v' }, { name: 'mask', input: 'mask', optional: true }],
    returns: {
      tuple: false,
      part: {
        name: 'scaled_dot_product_attention',
        kind: 'float',
        shape: { lead: { inputs: ['q', 'k', 'v', 'mask'], keep: 2 }, dims: [{ input: 'q', dim: -2 }, { input: 'v', dim: -1 }] },
      },
    },
    // A probability case has V = [identity | more columns]: each output row's first n_k entries are the query's probabilities.
    rows: { columns: { input: 'k', dim: -2 }, mask: 'mask' },
    signature: '`scaledDotProductAttention(Q, K, V, mask?)`',
    summary: 'softmax(Q Kᵀ / √d_k) V with an optional boolean mask',
    short: 'attention',
  },
  {
    id: 'causal_mask',
    export: 'causalMask',
    /** → boolean [seqLen, seqLen]. */
    args: [{ name: 'seqLen', param: 'seqLen' }],
    returns: { tuple: false, part: { name: 'causal_mask', kind: 'mask', shape: { dims: [{ param: 'seqLen' }, { param: 'seqLen' }] } } },
    signature: '`causalMask(seqLen)`',
    summary: 'boolean `[seqLen, seqLen]`, 1 where key ≤ query',
    short: 'causal mask',
  },
  {
    id: 'multihead_self_attention',
    export: 'multiHeadSelfAttention',
    /** x [...batch, seq, dModel], weights [dModel, dModel] (out, in), mask [seq, seq] → [...batch, seq, dModel]. */
    args: [
      { name: 'x', input: 'x' },
      { name: 'weights', object: { qProj: { input: 'q_proj' }, kProj: { input: 'k_proj' }, vProj: { input: 'v_proj' }, oProj: { input: 'o_proj' } } },
      { name: 'numHeads', param: 'numHeads' },
      { name: 'mask', input: 'mask', optional: true },
    ],
    returns: { tuple: false, part: { name: 'multihead_self_attention', kind: 'float', shape: sameAs('x') } },
    signature: '`multiHeadSelfAttention(x, weights, numHeads, mask?)`',
    summary: 'projections, heads, attention, output projection',
    short: 'multi-head',
  },
  {
    id: 'attention',
    export: 'attention',
    /** Q [...batch, queries, dK], K [...batch, keys, dK], V [...batch, keys, dV], options { mask, scale, returnWeights } → output [...batch, queries, dV], weights [...batch, queries, keys]. */
    args: [
      { name: 'Q', input: 'q' }, { name: 'K', input: 'k' }, { name: 'V', input: 'v' },
      { name: 'options', optional: true, object: { mask: { input: 'mask' }, scale: { param: 'scale', as: 'boolean' }, returnWeights: { param: 'returnWeights', as: 'boolean' } } },
    ],
    returns: {
      tuple: true,
      parts: [
        { name: 'output', kind: 'float', shape: { lead: { inputs: ['q', 'k', 'v', 'mask'], keep: 2 }, dims: [{ input: 'q', dim: -2 }, { input: 'v', dim: -1 }] } },
        {
          name: 'weights', kind: 'float', omittedWhenFalse: 'returnWeights',
          shape: { lead: { inputs: ['q', 'k', 'v', 'mask'], keep: 2 }, dims: [{ input: 'q', dim: -2 }, { input: 'k', dim: -2 }] },
        },
      ],
    },
    rows: { part: 'weights', mask: 'mask' },
    signature: '`attention(Q, K, V, { mask?, scale?, returnWeights? })`',
    summary: '`{ output, weights }`: attention and the weights it multiplies V with; unscaled with `scale: false`, no weights with `returnWeights: false`',
    short: 'attention with weights',
  },
  {
    id: 'single_head_attention',
    export: 'singleHeadAttention',
    /** x [...batch, seq, dModel], weights [dModel, dModel] (out, in) and biases [dModel], options { scale, mask } → [...batch, seq, dModel]. */
    args: [
      { name: 'x', input: 'x' },
      { name: 'weights', object: biased(['q', 'k', 'v']) },
      { name: 'options', optional: true, object: { scale: { param: 'scale', as: 'boolean' }, mask: { input: 'mask' } } },
    ],
    returns: { tuple: false, part: { name: 'single_head_attention', kind: 'float', shape: sameAs('x') } },
    signature: '`singleHeadAttention(x, weights, { scale?, mask? })`',
    summary: 'Q, K and V projected with biases, attention over all of d_model (scaled unless `scale: false`), no output projection',
    short: 'single head',
  },
  {
    id: 'multihead_attention',
    export: 'multiHeadAttention',
    /** x [...batch, seq, dModel], weights [dModel, dModel] (out, in) and biases [dModel], options { mask } → output [...batch, seq, dModel], weights [...batch, numHeads, seq, seq]. */
    args: [
      { name: 'x', input: 'x' },
      { name: 'weights', object: biased(['q', 'k', 'v', 'o']) },
      { name: 'numHeads', param: 'numHeads' },
      { name: 'options', optional: true, object: { mask: { input: 'mask' } } },
    ],
    returns: {
      tuple: true,
      parts: [
        { name: 'output', kind: 'float', shape: sameAs('x') },
        { name: 'weights', kind: 'float', shape: { lead: { inputs: ['x'], keep: 2 }, dims: [{ param: 'numHeads' }, { input: 'x', dim: -2 }, { input: 'x', dim: -2 }] } },
      ],
    },
    rows: { part: 'weights', mask: 'mask' },
    signature: '`multiHeadAttention(x, weights, numHeads, { mask? })`',
    summary: '`{ output, weights }`: multi-head attention with biases on all four projections, and every head\'s weights',
    short: 'biased multi-head',
  },
  // The gradients part (adapters/gradients.ts).
  ...GRADIENT_FUNCTIONS,
];

/** The functions of the parts the switch grades (tests/parts.ts): what the assignment is made of. */
export const FUNCTIONS: readonly FunctionSpec[] = ofParts(ALL_FUNCTIONS, PARTS_ON);
