/**
 * The gradients part (an optional part, off in the default handout): the backward passes of
 * softmax and of scaled dot-product attention, declared as functions.ts declares the others. The
 * course's Problem 3 asks for "gradient flow"; without autograd, a student learns it by writing
 * the backward pass.
 */
import type { FunctionSpec } from '../lib/assignment/functions';

/** The shape of an input, kept: each gradient has the shape of what it is the gradient of. */
const sameAs = (input: string) => ({ lead: { inputs: [input], keep: 0 }, dims: [] });

export const GRADIENT_FUNCTIONS: readonly FunctionSpec[] = [
  {
    id: 'softmax_backward',
    export: 'softmaxBackward',
    /** y = softmax(x, dim) [...], dy = ∂L/∂y of y's shape → ∂L/∂x of y's shape. */
    args: [{ name: 'y', input: 'y' }, { name: 'dy', input: 'dy' }, { name: 'dim', param: 'dim' }],
    returns: { tuple: false, part: { name: 'softmax_backward', kind: 'float', shape: sameAs('y') } },
    signature: '`softmaxBackward(y, dy, dim)`',
    summary: 'the gradient of softmax along `dim`: y ⊙ (dy − Σ(dy ⊙ y) along dim)',
    short: 'softmax backward',
  },
  {
    id: 'scaled_dot_product_attention_backward',
    export: 'scaledDotProductAttentionBackward',
    /**
     * Q [...batch, queries, dK], K [...batch, keys, dK], V [...batch, keys, dV], dOut = ∂L/∂output
     * [...batch, queries, dV], mask broadcastable to [...batch, queries, keys] → { dQ, dK, dV } of Q's, K's and V's shapes.
     */
    args: [
      { name: 'Q', input: 'q' }, { name: 'K', input: 'k' }, { name: 'V', input: 'v' }, { name: 'dOut', input: 'd_out' },
      { name: 'mask', input: 'mask', optional: true },
    ],
    returns: {
      tuple: true,
      parts: [
        { name: 'dQ', kind: 'float', shape: sameAs('q') },
        { name: 'dK', kind: 'float', shape: sameAs('k') },
        { name: 'dV', kind: 'float', shape: sameAs('v') },
      ],
    },
    signature: '`scaledDotProductAttentionBackward(Q, K, V, dOut, mask?)`',
    summary: '`{ dQ, dK, dV }`: the gradients of attention, scaled by 1/√d_k; masked positions pass none',
    short: 'attention backward',
  },
];

/** The gradients part's function ids. */
export const GRADIENT_IDS: ReadonlySet<string> = new Set(GRADIENT_FUNCTIONS.map((f) => f.id));
