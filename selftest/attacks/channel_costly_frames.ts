/**
 * Frames that cost the grader's one event loop, or its code, more than an honest answer can:
 * softmax sends a message whose type is an object with a `toString` that is not a function (the
 * parent once called String() on it inside its socket listener, and the whole batch died); attention
 * a 15 MiB frame of nested empty objects (once seconds of JSON.parse on the loop every classmate's
 * timers share); causalMask floods the channel with `ready` messages (once never counted as
 * unasked); multi-head a small frame of tens of thousands of empty objects. Each must end its own
 * case as refused, and cost no classmate anything.
 */
import { frame, writeChannel } from './kit';

function wait(): never {
  for (const until = Date.now() + 500; Date.now() < until; );
  throw new Error('the costly message was not refused');
}

export function softmax(): never {
  for (let id = 0; id < 4; id++) writeChannel(frame({ type: { toString: 0 }, id: id + 1 }));
  return wait();
}

/** JSON of `count` empty objects in a list, nested `depth` deep at its start. */
function objects(count: number, depth: number): Uint8Array {
  const parts: string[] = ['{"type":"result","id":1,"output":"","ok":true,"value":{"shape":[1],"data":'];
  for (let i = 0; i < depth; i++) parts.push('{"a":');
  parts.push(`[{}${',{}'.repeat(count - 1)}]`);
  for (let i = 0; i < depth; i++) parts.push('}');
  parts.push('}}');
  return new TextEncoder().encode(parts.join(''));
}

function rawFrame(json: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + json.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 4 + json.length);
  view.setUint32(4, json.length);
  out.set(json, 8);
  return out;
}

export function scaledDotProductAttention(): never {
  writeChannel(rawFrame(objects(5_000_000, 1000)));
  return wait();
}

export function causalMask(): never {
  for (let i = 0; i < 200; i++) writeChannel(frame({ type: 'ready' }));
  return wait();
}

export function multiHeadSelfAttention(): never {
  writeChannel(rawFrame(objects(40_000, 0)));
  return wait();
}
