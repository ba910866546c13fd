/**
 * Every kind of nesting a parser recurses on, as generated sources: each bracket, each prefix run,
 * each right and left chain. The nesting bound's unit tests (lib/text/nesting.test.ts),
 * the attacks (selftest/attacks/nesting.ts) and the measure of what the parsers survive
 * (nestingProbe.ts, `npm run bench:nesting`) draw from this one table.
 */
import { nestingPastBound } from '../text/nesting';

export interface Construct {
  /** A statement nested `k` steps deep. */
  source: (k: number) => string;
  /** What one step adds to the bound's count (an open bracket: 1; `{a:` a bracket and an operator: 2). */
  step: number;
  /** The text where a source past the bound is refused: one of a step's tokens. */
  token: RegExp;
}

const repeat = (text: string, k: number) => text.repeat(k);

export const NESTING_CONSTRUCTS: Record<string, Construct> = {
  parentheses: { source: (k) => `x = ${repeat('(', k)}1${repeat(')', k)};`, step: 1, token: /^\($/ },
  brackets: { source: (k) => `x = ${repeat('[', k)}1${repeat(']', k)};`, step: 1, token: /^\[$/ },
  objects: { source: (k) => `x = ${repeat('{a:', k)}1${repeat('}', k)};`, step: 2, token: /^[{:]$/ },
  blocks: { source: (k) => `function f() ${repeat('{', k)}${repeat('}', k)}`, step: 1, token: /^\{$/ },
  templates: { source: (k) => `x = ${repeat('`${', k)}1${repeat('}`', k)};`, step: 1, token: /^`$/ },
  typeArguments: { source: (k) => `type T = ${repeat('Array<', k)}number${repeat('>', k)};`, step: 1, token: /^<$/ },
  typeArgumentsAfterCommas: { source: (k) => `type T = ${repeat('Map<string, ', k)}number${repeat('>', k)};`, step: 1, token: /^<$/ },
  not: { source: (k) => `x = ${repeat('!', k)}1;`, step: 1, token: /^!$/ },
  minus: { source: (k) => `x = ${repeat('- ', k)}1;`, step: 1, token: /^-$/ },
  typeof: { source: (k) => `x = ${repeat('typeof ', k)}1;`, step: 1, token: /^t$/ },
  new: { source: (k) => `x = ${repeat('new ', k)}Object;`, step: 1, token: /^n$/ },
  await: { source: (k) => `async function f() { return ${repeat('await ', k)}1; }`, step: 1, token: /^a$/ },
  spread: { source: (k) => `x = ${repeat('[...', k)}[]${repeat(']', k)};`, step: 2, token: /^[[.]$/ },
  assignments: { source: (k) => `${repeat('a = ', k)}1;`, step: 1, token: /^=$/ },
  conditionals: { source: (k) => `x = ${repeat('a ? 1 : ', k)}1;`, step: 2, token: /^[?:]$/ },
  arrows: { source: (k) => `x = ${repeat('a => ', k)}1;`, step: 1, token: /^=$/ },
  asyncArrows: { source: (k) => `x = ${repeat('async a => ', k)}1;`, step: 2, token: /^[a=]$/ },
  exponents: { source: (k) => `x = ${repeat('2 ** ', k)}1;`, step: 1, token: /^\*$/ },
  sums: { source: (k) => `x = ${repeat('1 + ', k)}1;`, step: 1, token: /^\+$/ },
  members: { source: (k) => `x = a${repeat('.b', k)};`, step: 1, token: /^\.$/ },
  calls: { source: (k) => `x = a${repeat('()', k)};`, step: 1, token: /^\($/ },
  nonNull: { source: (k) => `x = a${repeat('!', k)};`, step: 1, token: /^!$/ },
  casts: { source: (k) => `x = a${repeat(' as any', k)};`, step: 1, token: /^a$/ },
  taggedTemplates: { source: (k) => `x = a${repeat('`t`', k)};`, step: 1, token: /^`$/ },
  nestedIfs: { source: (k) => `${repeat('if (a) ', k)}a;`, step: 1, token: /^[i(]$/ },
  nestedIfsOnLines: { source: (k) => `${repeat('if (a)\n', k)}a;`, step: 1, token: /^[i(]$/ },
  elseIfs: { source: (k) => `if (a) {} ${repeat('else if (a) {} ', k)}`, step: 2, token: /^[ei(]$/ },
  elseIfsAfterSemicolons: { source: (k) => `if (a) a; ${repeat('else if (a) a; ', k)}`, step: 2, token: /^[ei(]$/ },
  elseIfsOnLines: { source: (k) => `if (a) a\n${repeat('else if (a) a\n', k)}`, step: 2, token: /^[ei(]$/ },
  doWhiles: { source: (k) => `${repeat('do ', k)}a;${repeat(' while (a);', k)}`, step: 2, token: /^[dw(]$/ },
  labels: { source: (k) => `${Array.from({ length: k }, (_, i) => `l${i}: `).join('')};`, step: 1, token: /^:$/ },
  classHeritage: { source: (k) => `x = ${repeat('class extends ', k)}Object {}${repeat(' {}', k - 1)};`, step: 1, token: /^[e{]$/ },
  keyof: { source: (k) => `type T = ${repeat('keyof ', k)}string;`, step: 1, token: /^k$/ },
  conditionalTypes: { source: (k) => `type T<X> = ${repeat('X extends 1 ? 1 : ', k)}0;`, step: 3, token: /^[e?:]$/ },
  functionTypes: { source: (k) => `type T = ${repeat('() => ', k)}void;`, step: 1, token: /^[=(v]$/ },
  functionsInChains: { source: (k) => `x = ${repeat('!function f() { return ', k)}1${repeat('}', k)};`, step: 3, token: /^[!({]$/ },
};

/** The deepest count a source reaches: the least limit it passes. */
export function depthOf(source: string): number {
  let low = 0;
  let high = 1 << 22;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (nestingPastBound(source, mid) === undefined) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** The most steps of `construct` that `wrap` (a file around the statement) keeps within `limit`. */
export function stepsWithin(construct: Construct, limit: number, wrap = (statement: string) => statement): number {
  let low = 1;
  let high = 2 * Math.ceil(limit / construct.step) + 8;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (nestingPastBound(wrap(construct.source(mid)), limit) === undefined) low = mid;
    else high = mid - 1;
  }
  return low;
}
