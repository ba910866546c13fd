/**
 * The similarity check (lib/similarity) on a set of independent solutions (the catalogue's correct
 * ones, written by different hands in different styles, and the reference) and disguised copies of
 * them: by hand (selftest/similarity/corpus: names changed, functions reordered, comments and
 * blank lines changed, statements split or merged, a for loop turned into a while, a helper
 * inlined) and by a program (disguise.ts: every name renamed, top-level declarations shuffled, and
 * a random draw of rewrites that change nothing a program does), and with code that does nothing
 * drawn at random inserted (pureCode.ts: pure statements, pure left operands of commas, branches a
 * constant never takes), on the original or on a copy a program disguised. Every copy must reach
 * the threshold and rank above every pair of independent solutions, and no pair of different
 * origins may reach it. Also: pairs are listed by how much code they share, the handout's code is no
 * evidence, the page escapes every submission's text, the intake refuses links, and a submission
 * its reader cannot finish within its limit is a row naming the file, not a crash.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_DIR } from '../../lib/workCache';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { collect } from '../../lib/similarity/collect';
import type { PairScore } from '../../lib/similarity/compare';
import { tokenIds } from '../../lib/similarity/fingerprints';
import { readAll } from '../../lib/similarity/readers';
import { DEFAULT_THRESHOLD, runSimilarity } from '../../lib/similarity/run';
import { tempDir } from '../grader/materialize';
import { parseCsv } from '../../lib/report/exports';
import { disguise, drawRewrites } from './disguise';
import { withJunk } from './pureCode';

const CORRECT = path.join(__dirname, '..', 'catalogue', 'correct');
const LOOPS = path.join(__dirname, '..', 'catalogue', 'bugs', 'loops.ts');
const STUDENT = path.join(PROJECT_ROOT, 'student');

/** Independent solutions: each its own folder of files. */
const INDEPENDENT: Record<string, Record<string, string>> = {
  // The reference's four core functions as they stood when corpus/reference_disguised.ts was written
  // from them: the corpus is fixed text, whatever parts reference/index.ts grows.
  reference: { 'index.ts': fs.readFileSync(path.join(__dirname, 'corpus', 'reference.ts'), 'utf8') },
  tensor_methods: { 'index.ts': fs.readFileSync(path.join(__dirname, '..', 'catalogue', 'bugs', 'base.ts'), 'utf8') },
  float32_loops: { 'index.ts': fs.readFileSync(path.join(CORRECT, 'float32_loops.ts'), 'utf8') },
  minus_1e9: { 'index.ts': fs.readFileSync(path.join(CORRECT, 'minus_1e9.ts'), 'utf8') },
  plain_loops: { 'index.ts': fs.readFileSync(path.join(CORRECT, 'plain_loops.ts'), 'utf8') },
  knob_loops: {
    'index.ts': fs.readFileSync(path.join(CORRECT, 'loops_correct.ts'), 'utf8').replace('../bugs/loops', './loops'),
    'loops.ts': fs.readFileSync(LOOPS, 'utf8'),
  },
};

/** A copy as a program disguises it: names, order and a draw of no-op rewrites (disguise.ts), every file. */
const byProgram = (files: Record<string, string>, seed: string) => Object.fromEntries(Object.entries(files).map(([file, code]) => [
  file, disguise(code, ['renameEverything', 'reorderDeclarations', ...drawRewrites(`${seed}/${file}`)], `${seed}/${file}`),
]));

/** Draws per independent solution. */
const DRAWS = 3;

/** A copy with pure code drawn at random inserted (pureCode.ts), on the original or on a copy a program disguised. */
const withJunkIn = (files: Record<string, string>, seed: number) => Object.fromEntries(Object.entries(files).map(([file, code]) => [file, withJunk(code, seed)]));

const DISGUISED: Record<string, { of: string; files: Record<string, string> }> = {
  plain_loops_by_hand: { of: 'plain_loops', files: { 'index.ts': fs.readFileSync(path.join(__dirname, 'corpus', 'plain_loops_disguised.ts'), 'utf8') } },
  reference_by_hand: { of: 'reference', files: { 'index.ts': fs.readFileSync(path.join(__dirname, 'corpus', 'reference_disguised.ts'), 'utf8') } },
  ...Object.fromEntries(Object.entries(INDEPENDENT).flatMap(([of, files]) => Array.from({ length: DRAWS }, (_, draw) => [
    `${of}_by_program_${draw}`, { of, files: byProgram(files, `${of}-${draw}`) },
  ]))),
  ...Object.fromEntries(Object.entries(INDEPENDENT).flatMap(([of, files], k) => [
    [`${of}_with_junk`, { of, files: withJunkIn(files, 100 + k) }],
    [`${of}_by_program_with_junk`, { of, files: withJunkIn(byProgram(files, `${of}-junk`), 200 + k) }],
  ])),
};

function layOut(dir: string, submissions: Record<string, Record<string, string>>): void {
  for (const [name, files] of Object.entries(submissions)) {
    for (const [file, code] of Object.entries(files)) {
      fs.mkdirSync(path.join(dir, name, path.dirname(file)), { recursive: true });
      fs.writeFileSync(path.join(dir, name, file), code);
    }
  }
}

const key = (p: PairScore) => [p.a, p.b].sort().join(' · ');

describe('a set of independent solutions and disguised copies', async () => {
  const dir = tempDir('similarity');
  const submissions = path.join(dir, 'submissions');
  layOut(submissions, { ...INDEPENDENT, ...Object.fromEntries(Object.entries(DISGUISED).map(([name, d]) => [name, d.files])) });
  const outcome = await runSimilarity({ submissions, out: path.join(dir, 'out') });
  const csv = parseCsv(fs.readFileSync(outcome.files.csv, 'utf8')).slice(1);
  const scoreOf = new Map(csv.map(([a, b, score]) => [[a, b].sort().join(' · '), Number(score)]));
  const origin = (name: string) => INDEPENDENT[name] ? name : DISGUISED[name].of;
  const names = [...Object.keys(INDEPENDENT), ...Object.keys(DISGUISED)];
  const pairs = names.flatMap((a, i) => names.slice(i + 1).map((b) => ({ key: [a, b].sort().join(' · '), copy: origin(a) === origin(b) })));
  const copies = pairs.filter((p) => p.copy).map((p) => ({ ...p, score: scoreOf.get(p.key) ?? 0 }));
  const others = pairs.filter((p) => !p.copy).map((p) => ({ ...p, score: scoreOf.get(p.key) ?? 0 }));

  it('every copy (of an original, or of another copy of it) reaches the threshold; no pair of different origins does', () => {
    expect(copies.filter((p) => p.score < DEFAULT_THRESHOLD), 'copies below the threshold').toEqual([]);
    expect(others.filter((p) => p.score >= DEFAULT_THRESHOLD), 'pairs of different origins at or above it').toEqual([]);
    const flagged = new Set(outcome.flagged.map(key));
    expect(copies.every((p) => flagged.has(p.key))).toBe(true);
  });

  it('every copy ranks above every pair of independent solutions', () => {
    const worstCopy = Math.min(...copies.map((p) => p.score));
    const bestOther = Math.max(...others.map((p) => p.score));
    expect(worstCopy, `copies from ${worstCopy}, other pairs up to ${bestOther}`).toBeGreaterThan(bestOther);
  });

  it("writes the CSV (pair, score, both shares, shared tokens, longest fragment) and a page with the distribution, the words and each flagged pair's fragments", () => {
    expect(fs.readFileSync(outcome.files.csv, 'utf8').split('\r\n')[0]).toBe('"a","b","score","a_in_b","b_in_a","shared_tokens","longest_fragment_tokens"');
    for (const row of csv) expect(Number(row[5])).toBeGreaterThanOrEqual(Number(row[6]));
    const html = fs.readFileSync(outcome.files.html, 'utf8');
    expect(html).toContain('Evidence, not a verdict.');
    expect(html).toContain('similar code is expected');
    expect(html).toMatch(/<svg class="histogram"/);
    expect(outcome.flagged.every((p) => p.fragments.length > 0 && p.longest > 0 && p.shared >= p.longest)).toBe(true);
    // Listed by shared code, most first.
    expect(outcome.flagged.map((p) => p.shared)).toEqual(outcome.flagged.map((p) => p.shared).sort((x, y) => y - x));
    // Each shared fragment links to its other side.
    expect(html).toMatch(/<a class="shared" id="p0-f0-a" href="#p0-f0-b">/);
    expect(html).toMatch(/id="p0-f0-b" href="#p0-f0-a"/);
    expect(html).not.toMatch(/<script/i);
  });

  it('three or more submissions sharing one solution are one group', () => {
    // Each original with its copies is one group, and no group joins two origins.
    const byOrigin = Object.keys(INDEPENDENT).map((of) => names.filter((name) => origin(name) === of).sort());
    expect(byOrigin.every((group) => group.length >= 3)).toBe(true);
    expect(outcome.groups.map((group) => [...group].sort()).sort()).toEqual(byOrigin.sort());
    const html = fs.readFileSync(outcome.files.html, 'utf8');
    for (const group of outcome.groups) expect(html).toContain(`${group.length} submissions: ${group.join(', ')}`);
  });
});

describe('pairs are listed by how much code they share', () => {
  it('a disguised copy of a whole solution comes before two submissions that match whole on one short function', async () => {
    const dir = tempDir('similarity-rank');
    const stub = fs.readFileSync(path.join(STUDENT, 'index.ts'), 'utf8');
    // The same five lines of causalMask in the handout's stubs, nothing else written.
    const mask = stub.replace(/export function causalMask\(seqLen: number\): TensorLike \{[^}]*\}/,
      'export function causalMask(seqLen: number): TensorLike {\n  const data = new Uint8Array(seqLen * seqLen);\n'
      + '  for (let q = 0; q < seqLen; q++) for (let k = 0; k <= q; k++) data[q * seqLen + k] = 1;\n  return { shape: [seqLen, seqLen], data };\n}');
    expect(mask).not.toBe(stub);
    layOut(path.join(dir, 's'), {
      tiny_a: { 'index.ts': mask }, tiny_b: { 'index.ts': mask },
      reference: INDEPENDENT.reference, copy: DISGUISED.reference_by_hand.files,
    });
    const outcome = await runSimilarity({ submissions: path.join(dir, 's'), out: path.join(dir, 'o') });
    expect(outcome.flagged.map(key)).toEqual(['copy · reference', 'tiny_a · tiny_b']);
    const [copy, tiny] = outcome.flagged;
    expect(tiny.score).toBe(1);
    expect(copy.score).toBeLessThan(1);
    expect(copy.shared).toBeGreaterThan(2 * tiny.shared);
    const html = fs.readFileSync(outcome.files.html, 'utf8');
    expect(html.indexOf('copy · reference')).toBeLessThan(html.indexOf('tiny_a · tiny_b'));
  });
});

describe('what every student received is no evidence', () => {
  it('two stubs filled with a one-line body each share nothing once the handout is subtracted', async () => {
    const dir = tempDir('similarity-handout');
    const stub = fs.readFileSync(path.join(STUDENT, 'index.ts'), 'utf8');
    layOut(path.join(dir, 's'), { a: { 'index.ts': stub }, b: { 'index.ts': stub.replace("throw new NotImplementedError('softmax');", 'return x;') } });
    const without = await runSimilarity({ submissions: path.join(dir, 's'), out: path.join(dir, 'o1') });
    expect(without.flagged).toEqual([]);
    const withHandout = await runSimilarity({ submissions: path.join(dir, 's'), out: path.join(dir, 'o2'), handout: null });
    expect(withHandout.flagged.length).toBe(1);
  });
});

describe('hostile submissions', () => {
  // One folder, one run: a submission whose text and name carry markup beside the copy it was made
  // from, and a folder whose index.ts is a link.
  const dir = tempDir('similarity-hostile');
  const evil = `${INDEPENDENT.plain_loops['index.ts']}\n// </pre></script><script>alert(1)</script><img src=x onerror=alert(2)>\n`;
  layOut(path.join(dir, 's'), { plain_loops: INDEPENDENT.plain_loops, '<img src=x onerror=alert(3)>': { 'index.ts': evil } });
  fs.mkdirSync(path.join(dir, 's', 'linked'));
  fs.symlinkSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), path.join(dir, 's', 'linked', 'index.ts'));
  let run: ReturnType<typeof runSimilarity> | undefined;
  const outcome = () => (run ??= runSimilarity({ submissions: path.join(dir, 's'), out: path.join(dir, 'o') }));

  it("a submission's text reaches the page only escaped; its name too", async () => {
    const { flagged, files } = await outcome();
    expect(flagged.length).toBe(1);
    const html = fs.readFileSync(files.html, 'utf8');
    expect(html).not.toMatch(/<script|<img/i);
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(3)&gt;');
  });

  it('a folder with a symbolic link is refused by the intake and gets a row saying so', async () => {
    const collected = await collect(path.join(dir, 's'));
    const linked = collected.submissions.find((c) => c.name === 'linked')!;
    expect('problem' in linked && linked.problem).toMatch(/^not read: .*link/);
    const { notCompared, files } = await outcome();
    expect(notCompared.map((s) => s.name)).toEqual(['linked']);
    expect(fs.readFileSync(files.html, 'utf8')).toMatch(/Not compared.*linked/s);
  });

  it('a submission that holds its reader past its limit is a row naming the file, and the others are read', async () => {
    // A megabyte of statements: reading it takes far longer than the 1 ms it is given, whatever the
    // machine. The submission after it has the default limit: a loaded machine could hold even one line past 1 ms.
    const big = 'a.b(c, d);\n'.repeat(100_000);
    const out = await readAll([
      { label: 'big', entry: 'index.ts', files: new Map([['index.ts', big]]), limitMs: 1 },
      { label: 'fine', entry: 'index.ts', files: new Map([['index.ts', 'export const x = 1;']]) },
    ]);
    expect(out[0]).toMatch(/^(big\/index\.ts: )?reading it took longer than 0\.001 s and was stopped$/);
    expect(out[1]).toMatchObject({ ids: tokenIds(['let', '$', '=', 'num']) });
  });
});

describe('npm run similarity', () => {
  it('writes both files and says what it found; a missing folder is one line and exit 2', () => {
    const dir = tempDir('similarity-cli');
    layOut(path.join(dir, 's'), { plain_loops: INDEPENDENT.plain_loops, copy: DISGUISED.plain_loops_by_hand.files, reference: INDEPENDENT.reference });
    const stdout = execFileSync(process.execPath, [RUN_TS, 'scripts/similarity.ts', '--submissions', path.join(dir, 's'), '--out', path.join(dir, 'o')], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    expect(stdout).toMatch(/^compared 3 submissions: 1 pair\(s\) at or above 35%, 0 group\(s\) of three or more; handout subtracted: student\/ as committed in [0-9a-f]{7,}$/m);
    expect(fs.existsSync(path.join(dir, 'o', 'similarity.html'))).toBe(true);
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [RUN_TS, 'scripts/similarity.ts', '--submissions', path.join(dir, 'nowhere'), '--out', path.join(dir, 'o')], { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      failure = err as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(2);
    expect(failure?.stderr.trim().split('\n')).toHaveLength(1);
    expect(DEFAULT_THRESHOLD).toBe(0.35);
  });

  it('--similarity on a batch writes the same two files beside the gradebook; with --shard it is refused', () => {
    const dir = tempDir('similarity-grade');
    layOut(path.join(dir, 's'), { reference: INDEPENDENT.reference, copy: DISGUISED.reference_by_hand.files });
    const args = ['scripts/grade.ts', '--submissions', path.join(dir, 's'), '--out', path.join(dir, 'o'), '--similarity'];
    const stdout = execFileSync(process.execPath, [RUN_TS, ...args], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    expect(stdout).toMatch(/^similarity: 1 pair\(s\) at or above 35%, 0 group\(s\) of three or more \(handout subtracted: student\/ as committed in [0-9a-f]{7,}\); wrote /m);
    expect(fs.readdirSync(path.join(dir, 'o')).sort()).toEqual([CACHE_DIR, 'batch.json', 'grades-long.csv', 'grades.csv', 'report.html', 'similarity.csv', 'similarity.html', 'submissions']);
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [RUN_TS, ...args, '--shard', '1/2'], { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      failure = err as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(2);
    expect(failure?.stderr).toMatch(/--similarity compares the whole folder/);
  });
});
