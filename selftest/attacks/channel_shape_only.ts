/**
 * Answers for the pending request with the values left out: the grader now judges an answer of
 * another, larger shape by its shape alone (its values never cross the channel), and this attack
 * tries to have an answer of the right shape, or a smaller one, judged so too. It learns the
 * pending id by wrapping JSON.parse, which the child runtime's decoder calls on every request.
 * softmax sends its promised shape without values, attention a smaller shape without values,
 * multi-head floods the grader with flood notices: each must be refused. causalMask sends a larger
 * shape without values: a wrong shape, no points. None earns anything.
 */
import type { Tensor } from '../../lib/tensor';
import { frame, writeChannel } from './kit';

let pending = -1;
const parse = JSON.parse;
JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
  const value = parse(text, reviver) as { type?: unknown; id?: unknown } | null;
  if (value !== null && typeof value === 'object' && value.type === 'case' && typeof value.id === 'number') pending = value.id;
  return value;
}) as typeof JSON.parse;

/** An answer of one part named as the function's own (the name it returns under), with a shape and no values. */
function answer(part: string, shape: number[]): never {
  writeChannel(frame({ type: 'result', id: pending, output: '', changed: [], ok: true, value: [{ name: part, shape }] }));
  for (const until = Date.now() + 500; Date.now() < until; );
  throw new Error('the shape without values was not refused');
}

export function softmax(x: Tensor): never {
  return answer('softmax', [...x.shape]);
}

export function scaledDotProductAttention(Q: Tensor): never {
  return answer('scaled_dot_product_attention', [Q.shape[0]]);
}

export function causalMask(seqLen: number): never {
  return answer('causal_mask', [seqLen, seqLen, 2]);
}

export function multiHeadSelfAttention(): never {
  for (let i = 0; i < 20; i++) writeChannel(frame({ type: 'flood', id: pending }));
  for (const until = Date.now() + 500; Date.now() < until; );
  throw new Error('the flood notices were not refused');
}
