/**
 * Each function sends the grader a hand-made message straight to the channel, bypassing the child
 * runtime's caps, then waits: softmax an error with a 150 000-character stack, attention a result
 * whose shape has a million dims (10^8 elements), causalMask JSON nested a million deep,
 * multi-head a 200 MB frame announced in its header. The grader must refuse each (the case
 * crashes or errors, no points) without its heap or its event loop suffering.
 */
import type { Tensor } from '../../lib/tensor';
import { frame, writeChannel } from './kit';

function wait(): never {
  for (const until = Date.now() + 500; Date.now() < until; );
  throw new Error('the forged message was not refused');
}

/** The grader numbers its requests from 0; one of these is the pending one. */
function forEveryId(message: (id: number) => unknown): void {
  for (let id = 0; id < 64; id++) writeChannel(frame(message(id)));
}

export function softmax(): never {
  const stack = 'x'.repeat(150_000);
  forEveryId((id) => ({ type: 'result', id, output: '', ok: false, unreadable: false, error: { name: 'Error', message: 'forged', stack, notImplemented: false } }));
  return wait();
}

export function scaledDotProductAttention(Q: Tensor): never {
  const shape: number[] = [];
  for (let i = 0; i < 1_000_000; i++) shape.push(i % 100 === 0 ? 10 : 1);
  const data = new Uint8Array(4 * Q.data.length);
  writeChannel(frame({ type: 'result', id: 0, output: '', ok: true, value: { shape, data: { $typed: 'f32', at: 0, length: Q.data.length } } }, data));
  return wait();
}

export function causalMask(): never {
  const deep = new TextEncoder().encode('['.repeat(1_000_000) + ']'.repeat(1_000_000));
  const head = new Uint8Array(8);
  new DataView(head.buffer).setUint32(0, 4 + deep.length);
  new DataView(head.buffer).setUint32(4, deep.length);
  writeChannel(head);
  writeChannel(deep);
  return wait();
}

export function multiHeadSelfAttention(): never {
  const head = new Uint8Array(8);
  new DataView(head.buffer).setUint32(0, 200 * 1024 * 1024);
  new DataView(head.buffer).setUint32(4, 200 * 1024 * 1024 - 4);
  writeChannel(head);
  writeChannel(new TextEncoder().encode(`{"type":"result","id":0,"output":"${'y'.repeat(60_000)}`));
  return wait();
}
