/**
 * How each graded function of the norms assignment is called, as data the harness is handed
 * (lib/assignment/functions.ts): its export, its arguments from a case's inputs and params, what it
 * returns and the shape each returned tensor must have.
 */
import type { FunctionSpec } from '../lib/assignment/functions';

/** [...batch, k]: an input's leading dims, its last replaced by the param `k`. */
const lastDimK = { lead: { inputs: ['x'], keep: 1 }, dims: [{ param: 'k' }] };

export const FUNCTIONS: readonly FunctionSpec[] = [
  {
    id: 'layer_norm',
    export: 'layerNorm',
    /** x [...batch, d], gamma [d], beta [d], eps a number → x's shape. */
    args: [{ name: 'x', input: 'x' }, { name: 'gamma', input: 'gamma' }, { name: 'beta', input: 'beta' }, { name: 'eps', param: 'eps' }],
    returns: { tuple: false, part: { name: 'layer_norm', kind: 'float', shape: { lead: { inputs: ['x'], keep: 0 }, dims: [] } } },
    signature: '`layerNorm(x, gamma, beta, eps)`',
    summary: 'normalise the last dim to mean 0, variance 1 (eps inside the root), then scale by gamma and shift by beta',
    short: 'layer norm',
  },
  {
    id: 'top_k',
    export: 'topK',
    /** x [...batch, n], k ≤ n → values and indices [...batch, k]. */
    args: [{ name: 'x', input: 'x' }, { name: 'k', param: 'k' }],
    returns: {
      tuple: true,
      parts: [
        { name: 'values', kind: 'float', shape: lastDimK },
        { name: 'indices', kind: 'index', shape: lastDimK },
      ],
    },
    signature: '`topK(x, k)`',
    summary: '`{ values, indices }` of the k largest entries along the last dim, largest first, ties to the lower index',
    short: 'top-k',
  },
];
