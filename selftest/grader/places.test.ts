/**
 * Every place in student code that a message names has one form, `<folder>/<file>:<line>:<column>`
 * (lib/text/place.ts), and names the right folder: in a batch the submission's own name, wherever
 * its entry sits; for one submission the folder holding its entry; under `npm test` the folder
 * vitest was pointed at, as vitest names files. Broken submissions of each kind (a type error, a
 * syntax error in the entry or a helper, a throw in the entry or a helper, an import of a missing
 * file, an import of what a submission may not use) go through both paths, the grader's (its
 * feedback, reasons, stacks and type notes) and `npm test`'s (what a student's terminal shows), and
 * every mention of a line in a code file is checked.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gradeBatch } from '../../lib/batch/gradeBatch';
import type { SubmissionResult } from '../../lib/model/result';
import { PROJECT_ROOT } from '../../lib/paths';
import { codeFile } from '../../lib/text/place';
import { grade, gradeOptions } from './harness';
import { tempDir } from './materialize';

const work = tempDir('places');
const reference = fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8');
const CAUSAL = 'export function causalMask(seqLen: number): Tensor {';
const SOFTMAX_EXP = '  const e = shifted.exp();';
const edit = (find: string, by: string) => {
  if (!reference.includes(find)) throw new Error(`reference/index.ts no longer holds ${find}`);
  return reference.replace(find, by);
};
const withImport = (line: string, code = reference) => code.replace("import { Tensor } from '../lib/tensor';", `import { Tensor } from '../lib/tensor';\n${line}`);

interface Broken {
  /** Files by path inside the submission's folder (its entry's folder). */
  files: Record<string, string>;
  /** Where the entry's folder sits inside the submission's folder in a batch ('' at its top). */
  under?: string;
  /** Run under `npm test` too: vitest prints a path as the file system has it, so the odd name is the grader's alone. */
  npmTest: boolean;
  /** Where its code throws, as [file, text]: the first frame of both paths must be there. */
  throws?: [string, string];
}

const SUBMISSIONS: Record<string, Broken> = {
  'kemal-liskov': {
    files: { 'index.ts': edit(CAUSAL, `${CAUSAL}\n  const wrong: number = 'x';\n  if (seqLen > 0) throw new Error('mask broken ' + wrong);`) },
    npmTest: true, throws: ['index.ts', "new Error('mask broken '"],
  },
  'syntax-sam': { files: { 'index.ts': edit(SOFTMAX_EXP, '  const e = shifted.exp(;') }, npmTest: true },
  'syntax-sol': {
    files: { 'index.ts': withImport("import { scale } from './lib/util';", edit(SOFTMAX_EXP, '  const e = shifted.exp().mul(scale);')), 'lib/util.ts': '// a helper\n\nexport const scale = (1 + ;\n' },
    npmTest: true,
  },
  'throw-theo': {
    files: {
      'index.ts': withImport("import { check } from './lib/checks';", edit(SOFTMAX_EXP, '  check(dim);\n  const e = shifted.exp();')),
      'lib/checks.ts': "interface Limits {\n  low: number;\n}\n\nexport function check(dim: number): void {\n    if (dim < 5) throw new RangeError(`bad dim ${dim}`);\n}\n",
    },
    npmTest: true, throws: ['lib/checks.ts', 'new RangeError'],
  },
  'import-ivy': { files: { 'index.ts': withImport("import { helper } from './helpers';", edit(SOFTMAX_EXP, '  const e = shifted.exp().mul(helper);')) }, npmTest: true },
  'import-rex': { files: { 'index.ts': withImport("import { readFileSync } from 'node:fs';") }, npmTest: true },
  'nested-nia': {
    files: { 'index.ts': edit(CAUSAL, `${CAUSAL}\n  if (seqLen > 1) throw new TypeError('not yet');`) },
    under: 'attention-main/student', npmTest: true, throws: ['index.ts', "new TypeError('not yet')"],
  },
  'grace "<b>" & #1': {
    files: { 'index.ts': edit(CAUSAL, `${CAUSAL}\n  const n: string = 4;\n  if (seqLen > 0) throw new Error('no');`) },
    npmTest: false, throws: ['index.ts', "new Error('no')"],
  },
};

interface Place {
  text: string;
  path: string;
  line: number;
  column?: number;
  /** TypeScript's `file(line,col)`. */
  parenthesised: boolean;
}

/** Every mention of a line in a code file: `path:L:C`, `path:L` and `path(L,C)`, the path bare or quoted. */
function placesIn(text: string): Place[] {
  const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
  const pattern = /("(?:[^"\\\n]|\\.)*\.[cm]?[jt]sx?"|[^\s"'()[\]]+\.[cm]?[jt]sx?)(?::(\d+)(?::(\d+))?|\((\d+),(\d+)\))/g;
  return [...plain.matchAll(pattern)].map((m) => ({
    text: m[0],
    path: m[1],
    line: Number(m[2] ?? m[4]),
    column: m[3] ?? m[5] ? Number(m[3] ?? m[5]) : undefined,
    parenthesised: m[4] !== undefined,
  }));
}

/** What is wrong with each place: not the one form, or a file that is not one of the submission's as `named` names them. */
function misplaced(text: string, named: (file: string) => string, files: readonly string[]): string[] {
  return placesIn(text).flatMap((p) => {
    if (p.parenthesised) return [`${p.text}: TypeScript's (line,column), not :line:column`];
    if (p.column === undefined) return [`${p.text}: a line without its column`];
    if (!files.some((f) => named(f) === p.path)) return [`${p.text}: not ${files.map(named).join(' or ')}`];
    return [];
  });
}

/** What a grader's result says: its feedback (type notes, load errors), each test's reason, details (stacks) and printed output. */
const graderText = (r: SubmissionResult) => [...r.feedback, ...r.cases.flatMap((c) => [c.reason, c.details, c.output])].join('\n');

/** The line and column of `text` in `code`, from 1. */
function lineColumn(code: string, text: string): [number, number] {
  const before = code.slice(0, code.indexOf(text)).split('\n');
  return [before.length, before[before.length - 1].length + 1];
}

function write(root: string, name: string, { files, under = '' }: Broken): string {
  const folder = path.join(root, name, under);
  for (const [file, code] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    fs.writeFileSync(path.join(folder, file), code);
  }
  return folder;
}

/** What `npm test` prints for the submission in `folder`, as a terminal without colours shows it. */
function npmTest(folder: string): Promise<string> {
  const vitest = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  const child = spawn(process.execPath, [vitest, 'run'], {
    cwd: PROJECT_ROOT, env: { ...process.env, ATTENTION_SUBMISSION: folder, NO_COLOR: '1', FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
}

const batchDir = path.join(work, 'batch');
const folders = Object.fromEntries(Object.entries(SUBMISSIONS).map(([name, broken]) => [name, write(batchDir, name, broken)]));
let graded: Promise<Map<string, SubmissionResult>> | undefined;
/** The batch, graded once with its type notes. */
function batch(): Promise<Map<string, SubmissionResult>> {
  const { typeNotes: _, ...options } = gradeOptions();
  return (graded ??= gradeBatch(batchDir, path.join(work, 'out'), { ...options, jobs: 2, force: true })
    .then((outcome) => new Map(outcome.graded.map((r) => [r.name, r]))));
}

describe('one way to name a place in student code', () => {
  it('the grader, a batch: every place names the submission by its own name, nested entry and odd name included', async () => {
    const results = await batch();
    expect([...results.keys()].sort()).toEqual(Object.keys(SUBMISSIONS).sort());
    for (const [name, { files }] of Object.entries(SUBMISSIONS)) {
      const text = graderText(results.get(name)!);
      expect(misplaced(text, (f) => codeFile(name, f), Object.keys(files)), `${name}:\n${text}`).toEqual([]);
    }
    // Each kind of message names at least one place, so none of them went unchecked.
    const all = [...results.values()].map(graderText).join('\n');
    for (const kind of [/: error TS2322: /, /syntax error at syntax-sam\/index\.ts:\d+:\d+: /, /syntax-sol\/lib\/util\.ts:3:\d+: /,
      /import-ivy\/index\.ts:\d+:\d+ imports "\.\/helpers"/, /import-rex\/index\.ts:\d+:\d+ imports "node:fs"/, /at check \(throw-theo\/lib\/checks\.ts:6:\d+\)/]) {
      expect(all).toMatch(kind);
    }
  });

  it('the grader, one submission: the folder holding the entry (student/ in an upload of the repository)', async () => {
    const result = await grade(path.join(batchDir, 'nested-nia'), 'nested-nia');
    const text = graderText(result);
    expect(misplaced(text, (f) => codeFile('student', f), ['index.ts']), text).toEqual([]);
    expect(placesIn(text).length).toBeGreaterThan(0);
  });

  it('npm test: every place as vitest names the file, :line:column; a throw at the same place as the grader says', async () => {
    const results = await batch();
    const names = Object.keys(SUBMISSIONS).filter((name) => SUBMISSIONS[name].npmTest);
    const outputs = new Map<string, string>();
    // Two at a time: the machine has two cores.
    for (let i = 0; i < names.length; i += 2) {
      const pair = names.slice(i, i + 2);
      const printed = await Promise.all(pair.map((name) => npmTest(folders[name])));
      pair.forEach((name, k) => outputs.set(name, printed[k]));
    }
    for (const name of names) {
      const { files, throws } = SUBMISSIONS[name];
      const printed = outputs.get(name)!;
      expect(printed, name).toMatch(/Tests\s+\d+/);
      const asVitest = (f: string) => path.relative(PROJECT_ROOT, path.join(folders[name], f)).split(path.sep).join('/');
      // A load check's sentence is the grader's, word for word (lib/suite/load.ts): it names the file by
      // the submission's folder, as the grader does; vitest's own lines name it from the project.
      const names = [...Object.keys(files).map(asVitest), ...Object.keys(files).map((f) => codeFile(name, f))];
      expect(misplaced(printed, (n) => n, names), `${name}:\n${printed}`).toEqual([]);
      if (!throws) continue;
      // The throw, at its line and column in the file as written, in both paths.
      const [file, text] = throws;
      const [line, column] = lineColumn(files[file], text);
      const at = (p: Place) => [p.line, p.column];
      const graderPlaces = placesIn(graderText(results.get(name)!)).filter((p) => p.path === codeFile(name, file)).map(at);
      const testPlaces = placesIn(printed).filter((p) => p.path === asVitest(file)).map(at);
      expect(graderPlaces, name).toContainEqual([line, column]);
      expect(testPlaces, name).toContainEqual([line, column]);
    }
  });
});
