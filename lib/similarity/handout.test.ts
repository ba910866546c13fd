/**
 * The handout the similarity check subtracts (handout.ts): the stubs as committed, never the
 * working copy, where an instructor's own solution may sit (issue 40: it took flagged pairs from
 * 3,387 to 3,344, silently); and a clear reason when they cannot be had.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../paths';
import { committedStubs, handoutFolder, HandoutError } from './handout';
import { runSimilarity } from './run';

const STUB = fs.readFileSync(path.join(PROJECT_ROOT, 'student', 'index.ts'), 'utf8');
const REFERENCE = fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8');

/** A git repository whose last commit holds `committed` as student/, and whose working copy holds `working`. */
function repository(committed: Record<string, string>, working: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'handout-'));
  const git = (...args: string[]) => execFileSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { stdio: 'pipe' });
  git('init', '-q');
  const write = (files: Record<string, string>) => {
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
  };
  write(committed);
  git('add', '.');
  git('commit', '-q', '-m', 'stubs');
  write(working);
  return root;
}

describe('committedStubs', () => {
  it('reads student/ as the last commit holds it, not the working copy, and says so', () => {
    const root = repository({ 'student/index.ts': STUB, 'student/helpers/util.ts': 'export const one = 1;\n' }, { 'student/index.ts': REFERENCE, 'student/extra.ts': 'x' });
    const handout = committedStubs(root);
    expect([...handout.files.keys()].sort()).toEqual(['helpers/util.ts', 'index.ts']);
    expect(handout.files.get('index.ts')).toBe(STUB);
    expect(handout.entry).toBe('index.ts');
    expect(handout.described).toMatch(/^student\/ as committed in [0-9a-f]{7,}$/);
  });

  it('outside a git clone, or with no committed student/index.ts, a reason that says what to do', () => {
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'handout-none-'));
    expect(() => committedStubs(bare)).toThrow(HandoutError);
    expect(() => committedStubs(bare)).toThrow(/could not be read from git .*: run from a git clone of the project, or pass --base DIR with the stubs as students received them$/);
    const other = repository({ 'README.md': 'no stubs' }, { 'student/index.ts': STUB });
    expect(() => committedStubs(other)).toThrow(/^student\/index\.ts is not in the last commit \([0-9a-f]+\): commit the stubs, or pass --base DIR/);
  });

  it("with a solution in the working copy, its copies are still found; subtracting the working copy would hide them", async () => {
    const root = repository({ 'student/index.ts': STUB }, { 'student/index.ts': REFERENCE });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'handout-run-'));
    const copy = REFERENCE.replace(/\bscores\b/g, 'logits').replace(/\bweights\b/g, 'w');
    for (const [name, code] of Object.entries({ reference: REFERENCE, copy })) {
      fs.mkdirSync(path.join(dir, 's', name), { recursive: true });
      fs.writeFileSync(path.join(dir, 's', name, 'index.ts'), code);
    }
    const committed = await runSimilarity({ submissions: path.join(dir, 's'), out: path.join(dir, 'o1'), handout: committedStubs(root) });
    expect(committed.flagged.map((p) => `${p.a} · ${p.b}`)).toEqual(['copy · reference']);
    expect(committed.handout).toMatch(/^student\/ as committed in /);
    expect(fs.readFileSync(committed.files.html, 'utf8')).toContain(`Handout subtracted: ${committed.handout}.`);
    const working = await runSimilarity({ submissions: path.join(dir, 's'), out: path.join(dir, 'o2'), handout: handoutFolder(path.join(root, 'student')) });
    expect(working.flagged).toEqual([]);
    expect(working.handout).toBe(`${path.join(root, 'student')} (--base)`);
  });
});
