/**
 * What student code threw, described without trusting it (getters may throw, recurse or lie; a
 * Proxy's traps may throw), the same way in both paths: the grader's child (childMain.ts) sends
 * this, and `npm test` says the same of a value that is not an Error (tests/graded.test.ts).
 */
import { NotImplementedError } from '../errors';
import type { ErrorInfo } from './protocol';

/** Reads a property of something student code threw: getters may throw, recurse or lie. */
export function safeString(read: () => unknown, fallback: string): string {
  try {
    const text = String(read());
    return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  } catch {
    return fallback;
  }
}

export function isA(value: unknown, type: abstract new (...args: never[]) => unknown): boolean {
  try {
    return value instanceof type; // a Proxy's getPrototypeOf trap may throw
  } catch {
    return false;
  }
}

export function describeError(err: unknown): ErrorInfo {
  const notImplemented = isA(err, NotImplementedError);
  if (isA(err, Error)) {
    const e = err as Error;
    return {
      name: safeString(() => e.name, 'Error'),
      message: safeString(() => e.message, '(message could not be read)'),
      stack: safeString(() => e.stack, ''),
      notImplemented,
    };
  }
  const shown = err === null || typeof err !== 'object' ? safeString(() => err, 'a value') : 'an object';
  return { name: 'thrown value', message: `threw ${shown} instead of an Error`, stack: '', notImplemented };
}
