/**
 * Values known before a program runs, for effects.ts: literals, and JavaScript's own operators on
 * them (`!0`, `1 > 2`, `'a' + 1`), worked out here as JavaScript works them out; an object (an
 * array, a function) is known to be truthy, whatever it holds.
 */
import ts from 'typescript';

const K = ts.SyntaxKind;

/** A value known before the program runs: a primitive, or an object (any object is truthy). */
export type Constant = { primitive: string | number | bigint | boolean | null | undefined } | { object: true };

/** Operators whose result on primitives is worked out here; `in` and `instanceof` are not (they throw on them). */
const FOLDED = new Set([K.PlusToken, K.MinusToken, K.AsteriskToken, K.SlashToken, K.PercentToken, K.AsteriskAsteriskToken,
  K.LessThanLessThanToken, K.GreaterThanGreaterThanToken, K.GreaterThanGreaterThanGreaterThanToken, K.AmpersandToken, K.BarToken, K.CaretToken,
  K.LessThanToken, K.GreaterThanToken, K.LessThanEqualsToken, K.GreaterThanEqualsToken,
  K.EqualsEqualsToken, K.ExclamationEqualsToken, K.EqualsEqualsEqualsToken, K.ExclamationEqualsEqualsToken]);

export const truthyOf = (value: Constant | undefined) => (value === undefined ? undefined : 'object' in value ? true : Boolean(value.primitive));
export const nullishOf = (value: Constant | undefined) => (value === undefined ? undefined : 'object' in value ? false : value.primitive == null);

/** What `operate` gives, as JavaScript works it out on primitives; undefined when it throws (`1n + 1`). */
export function fold(operate: () => unknown): Constant | undefined {
  try {
    const primitive = operate();
    return { primitive: primitive as string | number | bigint | boolean | null | undefined };
  } catch {
    return undefined;
  }
}

export function unaryValue(operator: ts.SyntaxKind, operand: Constant | undefined): Constant | undefined {
  if (operand === undefined) return undefined;
  if (operator === K.ExclamationToken) return { primitive: !truthyOf(operand) };
  if ('object' in operand) return undefined;
  const v = operand.primitive as number;
  switch (operator) {
    case K.MinusToken: return fold(() => -v);
    case K.PlusToken: return fold(() => +v);
    case K.TildeToken: return fold(() => ~v);
    default: return undefined;
  }
}

export function binaryValue(operator: ts.SyntaxKind, left: Constant | undefined, right: Constant | undefined): Constant | undefined {
  if (!left || !right || 'object' in left || 'object' in right || !FOLDED.has(operator)) return undefined;
  // Arithmetic on whatever primitives came: JavaScript's own coercions, or undefined where it throws.
  const [a, b] = [left.primitive as number, right.primitive as number];
  switch (operator) {
    case K.PlusToken: return fold(() => a + b);
    case K.MinusToken: return fold(() => a - b);
    case K.AsteriskToken: return fold(() => a * b);
    case K.SlashToken: return fold(() => a / b);
    case K.PercentToken: return fold(() => a % b);
    case K.AsteriskAsteriskToken: return fold(() => a ** b);
    case K.LessThanLessThanToken: return fold(() => a << b);
    case K.GreaterThanGreaterThanToken: return fold(() => a >> b);
    case K.GreaterThanGreaterThanGreaterThanToken: return fold(() => a >>> b);
    case K.AmpersandToken: return fold(() => a & b);
    case K.BarToken: return fold(() => a | b);
    case K.CaretToken: return fold(() => a ^ b);
    case K.LessThanToken: return fold(() => a < b);
    case K.GreaterThanToken: return fold(() => a > b);
    case K.LessThanEqualsToken: return fold(() => a <= b);
    case K.GreaterThanEqualsToken: return fold(() => a >= b);
    case K.EqualsEqualsToken: return fold(() => a == b);
    case K.ExclamationEqualsToken: return fold(() => a != b);
    case K.EqualsEqualsEqualsToken: return fold(() => a === b);
    default: return fold(() => a !== b);
  }
}
