/**
 * Attacks on the similarity check with code that does nothing (issue 41): a copy of a solution
 * with every read of a name written `(0, name)`, or `typeof Math;` / `[];` after every statement,
 * took the issue's verbatim copy of the reference from 1.0 to 0.014 and 0.182 (threshold 0.35),
 * and both still grade 12/12. The class: any pure expression as a statement, as the left operand
 * of a comma, and any code under a condition that is constantly false (selftest/similarity/
 * pureCode.ts draws them at random). Each copy must keep its original's tokens exactly, so it
 * scores as the original itself; and the copies still grade as the original does (the code they
 * hide behind does nothing).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { gradeBatch } from '../../lib/batch/gradeBatch';
import { PROJECT_ROOT } from '../../lib/paths';
import { runSimilarity } from '../../lib/similarity/run';
import { tokenise } from '../../lib/similarity/tokens';
import { gradeOptions } from '../grader/harness';
import { tempDir } from '../grader/materialize';
import { theIssuesCopies, withJunk } from '../similarity/pureCode';

const CATALOGUE = path.join(PROJECT_ROOT, 'selftest', 'catalogue');
const CORPUS = [
  path.join(PROJECT_ROOT, 'reference', 'index.ts'),
  ...['bugs/base.ts', 'bugs/loops.ts', 'correct/float32_loops.ts', 'correct/minus_1e9.ts', 'correct/plain_loops.ts', 'correct/log_sum_exp.ts'].map((f) => path.join(CATALOGUE, f)),
  ...fs.readdirSync(path.join(__dirname, '..', 'similarity', 'corpus')).map((f) => path.join(__dirname, '..', 'similarity', 'corpus', f)),
];
/** Random draws of junk per solution of the corpus. */
const DRAWS = 12;

const tokensOf = (code: string) => tokenise(code).tokens.join(' ');
const syntaxErrors = (code: string) => (ts.transpileModule(code, { reportDiagnostics: true }).diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '));

function layOut(dir: string, submissions: Record<string, string>): void {
  for (const [name, code] of Object.entries(submissions)) {
    fs.mkdirSync(path.join(dir, name), { recursive: true });
    // Imports of the harness reach it from the submission's folder, as the grader maps them.
    fs.writeFileSync(path.join(dir, name, 'index.ts'), code);
  }
}

describe('code that does nothing hides no copy', () => {
  const reference = fs.readFileSync(CORPUS[0], 'utf8');

  it("the issue's copies keep the original's tokens, on every solution of the corpus", () => {
    for (const file of CORPUS) {
      const code = fs.readFileSync(file, 'utf8');
      const { commas, statements } = theIssuesCopies(code);
      expect(commas).not.toBe(code);
      expect(statements).not.toBe(code);
      expect(tokensOf(commas), `${path.basename(file)}, (0, name)`).toBe(tokensOf(code));
      expect(tokensOf(statements), `${path.basename(file)}, typeof Math;`).toBe(tokensOf(code));
    }
  });

  it('pure code drawn at random, after statements, before reads of a name and in branches that never run, keeps the tokens of every solution', () => {
    for (const file of CORPUS) {
      const code = fs.readFileSync(file, 'utf8');
      for (let seed = 1; seed <= DRAWS; seed++) {
        const copy = withJunk(code, seed);
        expect(copy.length, `${path.basename(file)} seed ${seed}`).toBeGreaterThan(code.length);
        expect(syntaxErrors(copy), `${path.basename(file)} seed ${seed}`).toEqual([]);
        expect(tokensOf(copy), `${path.basename(file)} seed ${seed}`).toBe(tokensOf(code));
      }
    }
  });

  it("in a run, the issue's copies and a random one score as the reference itself, and still grade full marks", async () => {
    const dir = tempDir('similarity-effects');
    const { commas, statements } = theIssuesCopies(reference);
    const copies = { commas, statements, junk: withJunk(reference, 41) };
    layOut(path.join(dir, 's'), { reference, ...copies, plain_loops: fs.readFileSync(path.join(CATALOGUE, 'correct', 'plain_loops.ts'), 'utf8') });
    const outcome = await runSimilarity({ submissions: path.join(dir, 's'), out: path.join(dir, 'o') });
    const score = (a: string, b: string) => outcome.flagged.find((p) => [p.a, p.b].sort().join() === [a, b].sort().join())?.score;
    for (const name of Object.keys(copies)) expect(score(name, 'reference'), name).toBe(1);
    expect(outcome.flagged.filter((p) => p.a === 'plain_loops' || p.b === 'plain_loops')).toEqual([]);

    // The copies do what the reference does: the grader gives them every point (a batch, in this
    // process: the command line is held elsewhere, the copies' points are held here).
    layOut(path.join(dir, 'g'), copies);
    const graded = await gradeBatch(path.join(dir, 'g'), path.join(dir, 'graded'), { ...gradeOptions(), jobs: 2, force: true });
    expect(graded.graded.map((r) => [r.name, r.status, r.score === r.maxScore]).sort()).toEqual(Object.keys(copies).sort().map((n) => [n, 'graded', true]));
  });
});
