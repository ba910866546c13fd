/** A helper with state of its own: how many times tick() was called in this instance of the module. */
let calls = 0;

export function tick(): number {
  return ++calls;
}
