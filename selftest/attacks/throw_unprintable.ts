/**
 * Throws values that resist being described. softmax throws an object whose toString, valueOf and
 * Symbol.toPrimitive throw; causalMask throws, one per test, an Error whose name, message and
 * stack getters throw, a Proxy whose every trap throws, and an object posing as an Error whose
 * message getter recurses without end. The grader must report these tests as errors (not hang, not
 * crash) and keep the other functions' points.
 */
export { multiHeadSelfAttention, scaledDotProductAttention } from './base';

const refuse = (): never => {
  throw new Error('you may not read me');
};

export function softmax(): never {
  throw { toString: refuse, valueOf: refuse, [Symbol.toPrimitive]: refuse };
}

function errorWithThrowingGetters(): Error {
  const err = new Error('hidden');
  // stack first: redefining it makes V8 format the stack, which reads name and message.
  for (const key of ['stack', 'name', 'message']) Object.defineProperty(err, key, { get: refuse });
  return err;
}

function proxyThatThrows(): unknown {
  const traps = ['get', 'has', 'getPrototypeOf', 'ownKeys', 'getOwnPropertyDescriptor', 'apply', 'construct'];
  return new Proxy(function hostile() {}, Object.fromEntries(traps.map((trap) => [trap, refuse])));
}

function errorWhoseMessageRecurses(): unknown {
  const pose = Object.create(Error.prototype) as { message: string };
  Object.defineProperty(pose, 'message', {
    get(this: { message: string }): string {
      return `${this.message}!`;
    },
  });
  return pose;
}

// By the test's seqLen (5, 1, 33): each case gets its own, even when a fresh child runs it.
const THROWN = [errorWithThrowingGetters, proxyThatThrows, errorWhoseMessageRecurses];

export function causalMask(seqLen: number): never {
  throw THROWN[seqLen % THROWN.length]();
}
