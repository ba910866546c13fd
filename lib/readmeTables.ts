/**
 * The README's tables of points and tests, made from the case table (tests/cases.ts) so that they
 * cannot drift from it: the release writes them into the handout's README, and a self-test holds
 * the project's README to them. Each table sits between two comment lines that name it.
 */
import { formatPoints } from './report/words';
import type { GradedCase, GradedFunction } from './assignment/cases';

const FUNCTIONS: readonly [GradedFunction, string, string][] = [
  ['softmax', '`softmax(x, dim)`', 'softmax along `dim`, stable for large inputs'],
  ['scaled_dot_product_attention', '`scaledDotProductAttention(Q, K, V, mask?)`', 'softmax(Q Kᵀ / √d_k) V with an optional boolean mask'],
  ['causal_mask', '`causalMask(seqLen)`', 'boolean `[seqLen, seqLen]`, 1 where key ≤ query'],
  ['multihead_self_attention', '`multiHeadSelfAttention(x, weights, numHeads, mask?)`', 'projections, heads, attention, output projection'],
];

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** Points per function, over the visible tests (what a student's `npm run grade` totals). */
export function functionTable(cases: readonly GradedCase[]): string[] {
  const visible = cases.filter((c) => !c.hidden);
  return [
    '| function | points | what it does |',
    '| --- | --- | --- |',
    ...FUNCTIONS.map(([fn, call, what]) => `| ${call} | ${formatPoints(visible.filter((c) => c.fn === fn).reduce((s, c) => s + c.points, 0))} | ${what} |`),
  ];
}

/** Every visible test: its name (what `-t` matches), its points and what it checks. */
export function testTable(cases: readonly GradedCase[]): string[] {
  return [
    '| test | points | checks |',
    '| --- | --- | --- |',
    ...cases.filter((c) => !c.hidden).map((c) => `| \`${c.name}\` | ${formatPoints(c.points)} | ${cell(c.what)} |`),
  ];
}

const TABLES: Record<string, (cases: readonly GradedCase[]) => string[]> = { functions: functionTable, tests: testTable };
const OPEN = (name: string) => `<!-- generated from tests/cases.ts: ${name} -->`;
const CLOSE = '<!-- end of generated table -->';

/** `markdown` with each generated table made afresh from `cases`; a table whose markers are missing is an error. */
export function withCaseTables(markdown: string, cases: readonly GradedCase[]): string {
  let out = markdown;
  for (const [name, make] of Object.entries(TABLES)) {
    const open = out.indexOf(OPEN(name));
    const close = open < 0 ? -1 : out.indexOf(CLOSE, open);
    if (open < 0 || close < 0) throw new Error(`README.md: no "${OPEN(name)}" … "${CLOSE}" block for the ${name} table`);
    out = `${out.slice(0, open)}${OPEN(name)}\n${make(cases).join('\n')}\n${out.slice(close)}`;
  }
  return out;
}
