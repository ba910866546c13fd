/**
 * The mutants of a correct solution: every place Stryker's mutators and ours (operators/) change
 * in each of its files, each with its truth, the operator and the parts of attention its changed
 * lines compute (regions.ts). Two mutants that make the same code are one (the first operator
 * kept: ours come first, being the more specific). A mutant's id is a hash of its file, operator
 * and changed lines before and after (their `// audit:` comments left out), so it is found again
 * when other lines of the solution change.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { OPERATORS } from './operators';
import { applyEdits, parse, type OperatorMutant } from './operators/operator';
import { linesParts, partsOf, type Part } from './regions';
import { strykerMutants } from './stryker';

export interface Solution {
  name: string;
  /** Its entry file; sibling .ts files are part of it when the entry is a folder's index.ts. */
  entry: string;
}

export interface Mutant {
  id: string;
  solution: string;
  /** The mutated file, relative to the solution's folder. */
  file: string;
  operator: string;
  line: number;
  /** The parts of attention the changed lines compute: where the mistake is. */
  parts: Part[];
  /** The changed line(s) as they now read, for a report. */
  code: string;
  /** Every file of the solution, this one mutated. */
  files: Record<string, string>;
}

/** A solution's files by path relative to its folder. */
export function solutionFiles(solution: Solution): Record<string, string> {
  const dir = path.dirname(solution.entry);
  const names = path.basename(solution.entry) === 'index.ts' ? fs.readdirSync(dir).filter((f) => f.endsWith('.ts')) : [path.basename(solution.entry)];
  return Object.fromEntries(names.map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
}

const lineOf = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

/** The lines where two texts differ, in each, trimmed and without their audit comments. */
function changedLines(before: string, after: string): [string, string] {
  const [a, b] = [before.split('\n'), after.split('\n')];
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let [endA, endB] = [a.length, b.length];
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) [endA, endB] = [endA - 1, endB - 1];
  const clean = (lines: string[]) => lines.map((l) => l.replace(/\s*\/\/ audit: .*$/, '').trim()).join('\n');
  return [clean(a.slice(start, endA)), clean(b.slice(start, endB))];
}

export async function mutantsOf(solution: Solution): Promise<Mutant[]> {
  const files = solutionFiles(solution);
  const out: Mutant[] = [];
  const seen = new Set<string>();
  for (const [file, text] of Object.entries(files)) {
    const source = parse(file, text);
    const parts = linesParts(text, `${solution.name}/${file}`);
    const found: OperatorMutant[] = [...OPERATORS.flatMap((op) => op.mutants(source)), ...(await strykerMutants(file, text))];
    const texts = new Set<string>();
    for (const m of found) {
      const mutated = applyEdits(text, m.edits);
      if (mutated === text || texts.has(mutated)) continue;
      texts.add(mutated);
      const at = m.at ?? m.edits[0];
      const [from, to] = [lineOf(text, at.start), lineOf(text, Math.max(at.start, at.end - 1))];
      const [before, after] = changedLines(text, mutated);
      let id = createHash('sha256').update(`${solution.name}\0${file}\0${m.operator}\0${before}\0${after}`).digest('hex').slice(0, 12);
      // The same change of the same lines elsewhere in the file (a repeated line): numbered in order.
      for (let n = 2; seen.has(id); n++) id = `${id.slice(0, 12)}-${n}`;
      seen.add(id);
      const code = after.split('\n').slice(0, 3).join(' ');
      out.push({ id, solution: solution.name, file, operator: m.operator, line: from, parts: partsOf(parts, from, to), code, files: { ...files, [file]: mutated } });
    }
  }
  return out;
}
