/**
 * The handout and the Gradescope bundle cut with every part on (the documented preset `full`, tests/parts.ts),
 * used as a student and as Gradescope use them: the stubs, fixtures, README tables and student's
 * notes of the parts on and of no other, the switch fixed so that no environment changes what is
 * graded, the suite and the grader running on the stubs and on the reference (each links the
 * project's node_modules, selftest/handoutCopies.ts; the packages are the default handout's, whose
 * install selftest/classroomDocs.test.ts tests), and the bundle grading the reference to full marks.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle } from '../lib/gradescope/bundle';
import { ACTIVE_LTS_RELEASE } from '../lib/gradescope/nodeRelease';
import { readZip, writeZip } from '../lib/gradescope/zip';
import type { Manifest } from '../lib/model/manifest';
import { buildHandout, type Handout } from '../lib/release';
import { hasRegions } from '../lib/text/regions';
import { assignmentWith, ASSIGNMENT } from '../tests/assignment';
import { PARTS } from '../tests/parts';
import { autograderRoot, reference, runAutograder, unpack } from './gradescopeKit';
import { HANDOUT_RUN_TS, handoutCopies } from './handoutCopies';
import { linkNodeModules } from './linkNodeModules';

/** The documented preset `full`: every part on (tests/parts.ts). */
const FULL = PARTS.map((p) => p.id);
const full = assignmentWith(FULL);
const weightsOnly = assignmentWith(['core', 'weights']);
const visible = full.cases.filter((c) => !c.hidden);
const points = (cases: readonly { points: number }[]) => cases.reduce((sum, c) => sum + c.points, 0);
/** Each handout these tests use or compare with, cut once. */
const cut = new Map<object, Handout>();
const handoutOf = (assignment: typeof full) => cut.get(assignment) ?? cut.set(assignment, buildHandout(assignment)).get(assignment)!;
const handoutFiles = (assignment: typeof full) => handoutOf(assignment).files;
const handoutText = (assignment: typeof full, file: string) => handoutFiles(assignment).get(file)!.toString('utf8');

let temp: string;
let stubs: string;
let solved: string;

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');

function run(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; output: string }> {
  const childEnv = { ...process.env, ...env };
  delete childEnv.ATTENTION_SUBMISSION;
  delete childEnv.GITHUB_ACTIONS;
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, env: childEnv, encoding: 'utf8', maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

interface JsonReport {
  numTotalTests: number;
  testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
}

async function suite(dir: string, env: NodeJS.ProcessEnv = {}): Promise<JsonReport> {
  const report = path.join(dir, '..', `${path.basename(dir)}-report.json`);
  const { output } = await run(dir, ['node_modules/vitest/vitest.mjs', 'run', '--reporter=json', `--outputFile=${report}`], env);
  if (!fs.existsSync(report)) throw new Error(`vitest wrote no report in ${path.basename(dir)}:\n${output}`);
  return JSON.parse(fs.readFileSync(report, 'utf8')) as JsonReport;
}

beforeAll(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), 'release-parts-'));
  // The contained child runs as nobody when the tests run as root: it must be able to reach its runtime.
  fs.chmodSync(temp, 0o755);
  ({ stubs, solved } = handoutCopies(full, temp, ['stubs', 'solved'], handoutOf(full)));
});

afterAll(() => {
  if (temp) fs.rmSync(temp, { recursive: true, force: true });
});

describe('what a handout with parts on holds', () => {
  it('the stubs of the parts on, with their doc comments, and no region marker', () => {
    const student = read(stubs, 'student/index.ts');
    for (const stub of ['attention', 'singleHeadAttention', 'multiHeadAttention', 'scaledDotProductAttention', 'softmaxBackward', 'scaledDotProductAttentionBackward']) {
      expect(student).toContain(`throw new NotImplementedError('${stub}')`);
    }
    expect(hasRegions(student)).toBe(false);
    const onlyWeights = handoutText(weightsOnly, 'student/index.ts');
    expect(onlyWeights).toContain("throw new NotImplementedError('attention')");
    expect(onlyWeights).not.toContain('singleHeadAttention');
    // The default handout's stubs are the committed file without any part's region.
    expect(handoutText(ASSIGNMENT, 'student/index.ts')).not.toMatch(/attention\(|singleHeadAttention|AttentionOptions|Backward/);
  });

  it('the fixtures of its cases, and only those: another part\'s stay out', () => {
    const manifest = JSON.parse(read(stubs, 'fixtures/manifest.json')) as Manifest;
    expect(Object.keys(manifest.fixtures).sort()).toEqual([...new Set(visible.map((c) => c.fixture))].sort());
    const weights = JSON.parse(handoutText(weightsOnly, 'fixtures/manifest.json')) as Manifest;
    expect(Object.keys(weights.fixtures).filter((key) => key.startsWith('mha_biased') || key.startsWith('single_head'))).toEqual([]);
    expect(Object.keys(weights.fixtures)).toContain('attention_causal');
  });

  it('its README: every function and test of its parts in the tables, and the sentence on the optional parts', () => {
    const readme = read(stubs, 'README.md');
    for (const c of visible) expect(readme).toContain(`| \`${c.name}\` | ${c.points} |`);
    expect(readme).toContain('| `attention(Q, K, V, { mask?, scale?, returnWeights? })` | 3 |');
    expect(readme).toContain('the functions after those four are yours to write too');
    expect(hasRegions(readme)).toBe(false);
    expect(handoutText(ASSIGNMENT, 'README.md')).not.toContain('yours to write too');
    expect(read(stubs, 'docs/students.md')).toContain('`singleHeadAttention` and `multiHeadAttention` project with biases');
  });

  it('the packages of the default handout: the parts change no dependency', () => {
    const usual = handoutFiles(ASSIGNMENT);
    for (const file of ['package.json', 'package-lock.json', 'tsconfig.json']) expect(read(stubs, file), file).toBe(usual.get(file)!.toString('utf8'));
  });
});

describe.concurrent('the handout with parts on, used as a student would', () => {
  it('npm test on the stubs: every visible case of every part on fails as not implemented, whatever ATTENTION_PARTS says', async () => {
    const report = await suite(stubs, { ATTENTION_PARTS: 'core' });
    expect(report.numTotalTests).toBe(visible.length);
    const results = report.testResults.flatMap((f) => f.assertionResults);
    expect(results.filter((a) => a.status !== 'failed' || !/is not implemented yet: edit student\/index\.ts/.test(a.failureMessages.join('\n'))).map((a) => a.title)).toEqual([]);
  });

  it('npm test with the reference as student/index.ts: every visible case passes', async () => {
    const report = await suite(solved);
    expect(report.numTotalTests).toBe(visible.length);
    expect(report.testResults.flatMap((f) => f.assertionResults).filter((a) => a.status !== 'passed').map((a) => a.title)).toEqual([]);
  });

  it('npm run grade on the reference: every visible point of the parts on, ATTENTION_PARTS set or not; results.json records the parts', async () => {
    const { code, output } = await run(solved, [HANDOUT_RUN_TS, 'scripts/grade.ts', '--json', 'results.json'], { ATTENTION_PARTS: 'nonsense' });
    expect(code, output).toBe(0);
    expect(output).toMatch(new RegExp(`Total: ${points(visible)}/${points(visible)}\\b`));
    expect(JSON.parse(read(solved, 'results.json')).extra_data.parts).toEqual(FULL);
  });

  it('npm run typecheck and tsc on the project and student/ pass on the stubs of every part on', async () => {
    const typecheck = await run(stubs, [HANDOUT_RUN_TS, 'scripts/typecheck.ts']);
    expect(typecheck.code, typecheck.output).toBe(0);
    for (const project of ['.', 'student']) {
      const { code, output } = await run(stubs, ['node_modules/typescript/bin/tsc', '-p', project]);
      expect(output).toBe('');
      expect(code).toBe(0);
    }
  });
});

describe('the Gradescope bundle with parts on', () => {
  it('grades the reference to full marks, hidden cases of every part on included, and records the parts', async () => {
    const entries = readZip(writeZip(buildBundle({ assignment: full, handout: handoutFiles(full), nodeVersion: ACTIVE_LTS_RELEASE })));
    const source = path.join(temp, 'bundle');
    unpack(source, entries);
    linkNodeModules(source);
    for (const hidden of full.cases.filter((c) => c.hidden)) expect(entries.some((e) => e.name.startsWith(`fixtures/${hidden.fixture}/`)), hidden.name).toBe(true);
    expect(entries.find((e) => e.name === 'tests/parts.ts')!.data.toString('utf8')).toContain(`const RELEASED: readonly string[] | undefined = ${JSON.stringify(FULL)};`);
    const { results } = await runAutograder(autograderRoot(path.join(temp, 'runs'), 'reference', { 'index.ts': reference() }, source), { env: { ATTENTION_PARTS: 'core' } });
    expect(results.tests.map((t) => t.name)).toEqual(full.cases.map((c) => c.name));
    expect(results.tests.filter((t) => t.status !== 'passed').map((t) => `${t.name}: ${t.output}`)).toEqual([]);
    expect(results.score).toBe(points(full.cases));
    expect((results.extra_data as { parts?: string[] }).parts).toEqual(FULL);
  });
});
