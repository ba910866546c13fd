/**
 * The type check's startup snapshot (lib/typecheck/snapshot.ts) changes what a check costs, never
 * what it says: a process started from it uses the declaration files it parsed only when they are
 * what parsing now would give, and its notes on every submission of the mistake catalogue, and on
 * variants of them broken in the ways type errors come (a wrong type, a Node global, a change to
 * the global scope, a triple-slash reference), are the notes of a process started without it. A
 * blob this Node cannot load costs nothing but time.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, RUN_TS } from '../lib/paths';
import type { CheckedSubmission } from '../lib/typecheck/check';
import { snapshotSettings } from '../lib/typecheck/check';
import { startTypeCheck, TYPE_CHECK_LIMITS } from '../lib/typecheck/run';
import { blobPrefix, ensureTypeCheckSnapshot, snapshotBlobPath, SNAPSHOT_PRELOAD } from '../lib/typecheck/snapshot';
import { BUGS, CORRECT } from './catalogue';
import { HELPERS, tempDir } from './grader/materialize';

const work = tempDir('typecheck-snapshot');
const helpers = Object.fromEntries(HELPERS.map((file) => [path.basename(file), fs.readFileSync(file, 'utf8')]));

/** Ways a submission's types go wrong, each added to a catalogue entry's index.ts. */
const BREAKS = [
  "\nexport const wrong: number = 'a string';\n",
  "\nexport const bytes = Buffer.from('x').lenght + process.env.HOME!.length;\n",
  '\ndeclare global {\n  interface Math { attention(): number }\n}\nexport const viaMath: string = Math.attention();\n',
  '/// <reference types="node" />\nexport const fromNode: number = process.memoryUsage();\n',
  '\nexport function softmaxTwice(x: import("../../../lib/tensor").Tensor) { return x.softmax(-1).softmax(); }\n',
];

function submissions(): CheckedSubmission[] {
  const entries = [...CORRECT, ...BUGS];
  const all = entries.map((entry) => ({
    name: entry.name, label: entry.name, entry: 'index.ts', files: { ...helpers, 'index.ts': fs.readFileSync(entry.file, 'utf8') },
  }));
  // Every break, each on a different entry of the catalogue.
  BREAKS.forEach((broken, i) => {
    const entry = entries[(i * 17) % entries.length];
    const text = fs.readFileSync(entry.file, 'utf8');
    all.push({ name: `${entry.name}_broken${i}`, label: `${entry.name}_broken${i}`, entry: 'index.ts', files: { ...helpers, 'index.ts': broken.startsWith('///') ? broken + text : text + broken } });
  });
  return all;
}

async function notesOf(checked: readonly CheckedSubmission[], blob: string | undefined): Promise<Record<string, string[]>> {
  const notes = startTypeCheck(checked, TYPE_CHECK_LIMITS, undefined, blob);
  return Object.fromEntries(await Promise.all(checked.map(async (s) => [s.name, await notes(s.name)] as const)));
}

/** The notes of a check without the snapshot, on every submission: what both checks from a blob are held to, checked once. */
let without: Promise<Record<string, string[]>> | undefined;
const withoutSnapshot = () => (without ??= notesOf(submissions(), undefined));

let blob: string;
beforeAll(() => {
  const made = ensureTypeCheckSnapshot(snapshotSettings());
  if (!('blob' in made)) throw new Error(`no snapshot: ${made.why}`);
  blob = made.blob;
}, 300_000);
// A scratch blob is 45 MB.
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('the type check started from its snapshot', () => {
  it('uses the parsed declaration and harness files of the same TypeScript, none whose text changed, none under other options', () => {
    const probe = path.join(work, 'probe.js');
    fs.writeFileSync(probe, `
const ts = require(${JSON.stringify(require.resolve('typescript'))});
const { compilerOptions, preparsedFiles } = require(${JSON.stringify(path.join(PROJECT_ROOT, 'lib', 'typecheck', 'check.ts'))});
const snapshot = globalThis.__attentionTypeCheckSnapshot;
const options = compilerOptions();
const used = preparsedFiles(options);
const es5 = [...snapshot.files.keys()].find((f) => f.endsWith('lib.es5.d.ts'));
const tensor = ${JSON.stringify(path.join(PROJECT_ROOT, 'lib', 'tensor.ts'))};
const read = ts.sys.readFile;
ts.sys.readFile = (file, encoding) => (file === es5 ? read(file, encoding) + '\\n' : read(file, encoding));
const changed = preparsedFiles(options);
ts.sys.readFile = read;
console.log(JSON.stringify({
  same: snapshot.ts === ts, held: snapshot.files.size, used: used.size, node: [...used.keys()].some((f) => f.endsWith('@types/node/fs.d.ts')), harness: used.has(tensor),
  changedKept: changed.has(es5), changedSize: changed.size, otherOptions: preparsedFiles({ ...options, strict: false }).size,
}));
`);
    const run = spawnSync(process.execPath, ['--snapshot-blob', blob, '-r', SNAPSHOT_PRELOAD, '-r', RUN_TS, probe], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const seen = JSON.parse(run.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(seen.same).toBe(true);
    expect(seen.held).toBeGreaterThan(100);
    expect(seen.used).toBe(seen.held);
    expect(seen.node).toBe(true);
    // The harness module a submission imports comes parsed too: a check parses only the submission's files.
    expect(seen.harness).toBe(true);
    expect(seen.changedKept).toBe(false);
    expect(seen.changedSize).toBe((seen.held as number) - 1);
    expect(seen.otherOptions).toBe(0);
  });

  it('gives every submission of the catalogue, and broken variants of them, the notes a check without it gives', async () => {
    const checked = submissions();
    const [withSnapshot, plain] = await Promise.all([notesOf(checked, blob), withoutSnapshot()]);
    expect(withSnapshot).toEqual(plain);
    // The breaks are found: the comparison is not of empty notes only.
    for (let i = 0; i < BREAKS.length; i++) {
      const name = checked.find((s) => s.name.endsWith(`_broken${i}`))!.name;
      expect(withSnapshot[name].join('\n'), name).toMatch(/Type errors \(no points/);
    }
    expect(withSnapshot[checked.find((s) => s.name.endsWith('_broken2'))!.name].join('\n')).toMatch(/changes the types of the global scope/);
  }, 300_000);

  it('a blob this Node cannot load: the checks run without it, with the same notes', async () => {
    const broken = path.join(work, 'not-a-snapshot.blob');
    fs.writeFileSync(broken, Buffer.alloc(4096, 7));
    const checked = submissions().slice(-BREAKS.length);
    const [fromBroken, plain] = await Promise.all([notesOf(checked, broken), withoutSnapshot()]);
    expect(fromBroken).toEqual(Object.fromEntries(checked.map((s) => [s.name, plain[s.name]])));
    expect(Object.values(fromBroken).flat().join('\n')).not.toMatch(/not checked/);
  }, 300_000);

  it("a build replaces this Node's older blobs of this folder, and no other folder's (a linked node_modules shares the cache)", () => {
    const cache = path.join(work, 'cache');
    fs.mkdirSync(cache);
    const older = path.join(cache, `${blobPrefix()}0000000000000000.blob`);
    const elsewhere = path.join(cache, `${process.version}-ffffffff-0000000000000000.blob`);
    const otherNode = path.join(cache, 'v0.0.0-00000000-0000000000000000.blob');
    for (const file of [older, elsewhere, otherNode]) fs.writeFileSync(file, 'a blob of before');
    const made = ensureTypeCheckSnapshot(snapshotSettings(), cache);
    expect(made).toEqual({ blob: snapshotBlobPath(cache), built: true });
    expect(fs.readdirSync(cache).sort()).toEqual([path.basename(snapshotBlobPath(cache)), path.basename(elsewhere), path.basename(otherNode)].sort());
    // Built whole: a process starts from it and says what a check says.
    const run = spawnSync(process.execPath, ['--snapshot-blob', snapshotBlobPath(cache), '-e', 'console.log(globalThis.__attentionTypeCheckSnapshot.files.size)'], { encoding: 'utf8' });
    expect(Number(run.stdout.trim())).toBeGreaterThan(100);
  }, 300_000);
});
