/**
 * The README's tables of points and tests, made from the assignment's declaration (its functions'
 * specs and its case table) so that they cannot drift from it: the release writes them into the
 * handout's README, and a self-test holds the project's README to them. Each table sits between
 * two comment lines that name it.
 */
import type { GradedCase } from './assignment/cases';
import type { FunctionSpec } from './assignment/functions';
import { formatPoints } from './report/words';

/** What the tables are made from. */
export interface Declared {
  functions: readonly FunctionSpec[];
  cases: readonly GradedCase[];
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** Points per function, over the visible tests (what a student's `npm run grade` totals). */
export function functionTable({ functions, cases }: Declared): string[] {
  const visible = cases.filter((c) => !c.hidden);
  return [
    '| function | points | what it does |',
    '| --- | --- | --- |',
    ...functions.map((f) => `| ${f.signature} | ${formatPoints(visible.filter((c) => c.fn === f.id).reduce((s, c) => s + c.points, 0))} | ${f.summary} |`),
  ];
}

/** Every visible test: its name (what `-t` matches), its points and what it checks. */
export function testTable({ cases }: Declared): string[] {
  return [
    '| test | points | checks |',
    '| --- | --- | --- |',
    ...cases.filter((c) => !c.hidden).map((c) => `| \`${c.name}\` | ${formatPoints(c.points)} | ${cell(c.what)} |`),
  ];
}

const TABLES: Record<string, (declared: Declared) => string[]> = { functions: functionTable, tests: testTable };
// The markers name the case table's usual file: what an instructor edits to change the tables.
const OPEN = (name: string) => `<!-- generated from tests/cases.ts: ${name} -->`;
const CLOSE = '<!-- end of generated table -->';

/** `markdown` with each generated table made afresh from `declared`; a table whose markers are missing is an error. */
export function withCaseTables(markdown: string, declared: Declared): string {
  let out = markdown;
  for (const [name, make] of Object.entries(TABLES)) {
    const open = out.indexOf(OPEN(name));
    const close = open < 0 ? -1 : out.indexOf(CLOSE, open);
    if (open < 0 || close < 0) throw new Error(`README.md: no "${OPEN(name)}" … "${CLOSE}" block for the ${name} table`);
    out = `${out.slice(0, open)}${OPEN(name)}\n${make(declared).join('\n')}\n${out.slice(close)}`;
  }
  return out;
}
