/**
 * For lib's unit tests of a tuple return (checks.test.ts, tupleVerdict.test.ts): a function that
 * returns the largest entries of each row and where they are, declared once.
 */
import type { FunctionSpec } from '../assignment/functions';

export const LARGEST_SPEC: FunctionSpec = {
  id: 'largest',
  export: 'largest',
  args: [{ name: 'x', input: 'x' }, { name: 'k', param: 'k' }],
  returns: {
    tuple: true,
    parts: [
      { name: 'values', kind: 'float', shape: { lead: { inputs: ['x'], keep: 1 }, dims: [{ param: 'k' }] } },
      { name: 'indices', kind: 'index', shape: { lead: { inputs: ['x'], keep: 1 }, dims: [{ param: 'k' }] } },
    ],
  },
  signature: '`largest(x, k)`',
  summary: 'the k largest entries of each row',
  short: 'largest',
};
