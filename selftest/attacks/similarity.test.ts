/**
 * Attacks on the similarity check (lib/similarity), the classes of issue 27:
 * - a copy hidden by syntax that changes nothing (`;` after each statement, parentheses around
 *   operands and arguments, trailing commas, braces, `var` for `const`, `x = x + 1` for `x++`,
 *   types added or removed, arrows for functions…): every draw of such rewrites, in any order, on
 *   every solution of the corpus, must leave the tokens exactly as they were, so the copy scores
 *   as the original does;
 * - submissions built to stall it (the issue's two 64 KiB files of `a(b);`, and repetitions of
 *   other shapes: one token, a long period, no repetition at all, unbalanced and deep brackets,
 *   copies of copies, several colluders): the check finishes, and its work stays within a few steps
 *   per token and other submission. Work is counted, not timed, so a busy machine changes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/paths';
import type { Tokenised } from '../../lib/similarity/collect';
import { compare } from '../../lib/similarity/compare';
import { similarityReport } from '../../lib/similarity/page';
import { runSimilarity } from '../../lib/similarity/run';
import { tokenIds } from '../../lib/similarity/fingerprints';
import { tokenise } from '../../lib/similarity/tokens';
import { NESTING_LIMIT } from '../../lib/text/nesting';
import { tempDir } from '../grader/materialize';
import { disguise, EXCLUSIVE, REWRITES } from '../similarity/disguise';

const CATALOGUE = path.join(PROJECT_ROOT, 'selftest', 'catalogue');
const CORPUS = [
  path.join(PROJECT_ROOT, 'reference', 'index.ts'),
  ...['bugs/base.ts', 'bugs/loops.ts', 'correct/float32_loops.ts', 'correct/minus_1e9.ts', 'correct/plain_loops.ts', 'correct/log_sum_exp.ts'].map((f) => path.join(CATALOGUE, f)),
  ...fs.readdirSync(path.join(__dirname, '..', 'similarity', 'corpus')).map((f) => path.join(__dirname, '..', 'similarity', 'corpus', f)),
];
const KiB = 1024;

describe('syntax that changes nothing hides no copy', () => {
  it("the issue's copy (`;` after each statement, parentheses around operands and arguments) scores as the original itself", async () => {
    const dir = tempDir('similarity-noop');
    for (const file of CORPUS.slice(0, 5)) {
      const name = path.basename(file, '.ts');
      const code = fs.readFileSync(file, 'utf8');
      for (const [folder, text] of [[name, code], [`${name}_copy`, disguise(code, ['semicolonAfterEveryStatement', 'parenthesiseOperandsAndArguments'])]]) {
        fs.mkdirSync(path.join(dir, 's', folder), { recursive: true });
        fs.writeFileSync(path.join(dir, 's', folder, 'index.ts'), text);
      }
    }
    const outcome = await runSimilarity({ submissions: path.join(dir, 's'), out: path.join(dir, 'o') });
    const copies = outcome.flagged.filter((p) => p.b === `${p.a}_copy`).sort((p, q) => (p.a < q.a ? -1 : 1));
    expect(copies.map((p) => [p.a, p.score])).toEqual(CORPUS.slice(0, 5).map((f) => [path.basename(f, '.ts'), 1]).sort());
  });

  it('each rewrite changes the text of some solution of the corpus (none is a rewrite in name only)', () => {
    const codes = CORPUS.map((file) => fs.readFileSync(file, 'utf8'));
    for (const name of Object.keys(REWRITES)) {
      // A rewrite that undoes another (`x = x + y` → `x += y`) may need the other's output to work on.
      const before = EXCLUSIVE.find((set) => set.includes(name))?.filter((other) => other !== name) ?? [];
      const changes = (first: string[]) => codes.some((code) => disguise(code, [...first, name]) !== disguise(code, first));
      expect(changes([]) || before.some((other) => changes([other])), name).toBe(true);
    }
  });

  it('every draw of such rewrites, in any order, on every solution of the corpus, leaves the tokens as they were', () => {
    const names = Object.keys(REWRITES).filter((name) => name !== 'reorderDeclarations');
    for (const file of CORPUS) {
      const code = fs.readFileSync(file, 'utf8');
      const original = tokenise(code).tokens.join(' ');
      for (let draw = 0; draw < 12; draw++) {
        const seed = `${path.basename(file)}/${draw}`;
        const rng = seedrandom(seed);
        const chosen = names.filter(() => rng() < 0.5).map((name) => [rng(), name] as const).sort((x, y) => x[0] - y[0]).map(([, name]) => name);
        expect(tokenise(disguise(code, chosen, seed)).tokens.join(' '), `seed ${seed}: ${chosen.join(', ')}`).toBe(original);
      }
    }
  });
});

/** `bytes` of text made of `unit(i)` for i = 0, 1, … */
const fill = (unit: (i: number) => string, bytes: number) => {
  const parts: string[] = [];
  for (let length = 0, i = 0; length < bytes; i++) {
    parts.push(unit(i));
    length += parts[parts.length - 1].length;
  }
  return parts.join('').slice(0, bytes);
};

/** Two or more colluding texts of one shape; each differs from the others in its first line, so no two are one stream. */
const SHAPES: Record<string, string[]> = {
  one_statement: [fill(() => 'a(b);', 64 * KiB), `x = 1;\n${fill(() => 'a(b);', 64 * KiB)}`],
  long_period: [0, 1].map((k) => `let v${k} = ${k};\n${fill((i) => `x.p${i % 97}(y.q${i % 13}, [z.r${i % 7}]);\n`, 64 * KiB)}`),
  no_repetition: [0, 1].map((k) => `let v${k} = ${k};\n${fill((i) => `a.p${i}(b.q${i * 7});\n`, 64 * KiB)}`),
  unbalanced: [0, 1].map((k) => `let v${k} = ${k};\n${fill(() => ')', 64 * KiB)}`),
  // As deep as a text may nest (lib/text/nesting.ts; deeper is refused before parsing: attacks/similarityNesting.test.ts), line after line.
  deep: [0, 1].map((k) => `let v${k} = ${k};\n${fill(() => `x = ${'['.repeat(NESTING_LIMIT - 1)}${']'.repeat(NESTING_LIMIT - 1)};\n`, 40 * KiB)}`),
  copies_of_copies: [0, 1].map((k) => `let v${k} = ${k};\n${fill(() => `a${'[a'.repeat(NESTING_LIMIT / 2 - 2)}${'] += 1'.repeat(NESTING_LIMIT / 2 - 2)};\n`, 64 * KiB)}`),
  colluders: Array.from({ length: 6 }, (_, k) => `let v${k} = ${k};\n${fill((i) => `x.p${i % 97}(y.q${i % 13});\n`, 32 * KiB)}`),
};

describe('no submission stalls the check', () => {
  it("the issue's two 64 KiB files of `a(b);` beside two solutions: compared, flagged, in a bounded number of steps", async () => {
    const dir = tempDir('similarity-stall');
    const folders: Record<string, string> = {
      a: SHAPES.one_statement[0], b: SHAPES.one_statement[1],
      reference: fs.readFileSync(CORPUS[0], 'utf8'), plain_loops: fs.readFileSync(path.join(CATALOGUE, 'correct', 'plain_loops.ts'), 'utf8'),
    };
    for (const [name, text] of Object.entries(folders)) {
      fs.mkdirSync(path.join(dir, 's', name), { recursive: true });
      fs.writeFileSync(path.join(dir, 's', name, 'index.ts'), text);
    }
    const outcome = await runSimilarity({ submissions: path.join(dir, 's'), out: path.join(dir, 'o') });
    expect(outcome.notCompared).toEqual([]);
    expect(outcome.flagged.map((p) => `${p.a} · ${p.b}`)).toEqual(['a · b']);
    const tokens = Object.values(folders).reduce((sum, text) => sum + tokenise(text).tokens.length, 0);
    expect(outcome.work).toBeLessThanOrEqual(4 * tokens);
  });

  for (const [shape, texts] of Object.entries(SHAPES)) {
    it(`${shape}: ${texts.length} colluding submissions cost a few steps per token and other submission, and a page of bounded size`, () => {
      const submissions: Tokenised[] = texts.map((text, k) => {
        const { tokens, spans } = tokenise(text);
        return { name: `${shape}_${k}`, text, ids: tokenIds(tokens), spans };
      });
      const tokens = submissions.reduce((sum, s) => sum + s.ids.length, 0);
      const comparison = compare(submissions);
      const report = similarityReport(comparison, [], 0.35, undefined);
      expect(comparison.work(), `${comparison.work()} steps for ${tokens} tokens`).toBeLessThanOrEqual(4 * tokens * (texts.length - 1));
      const text = texts.reduce((sum, t) => sum + t.length, 0);
      expect(report.html.length).toBeLessThanOrEqual(16 * text + 100 * KiB);
    });
  }
});
