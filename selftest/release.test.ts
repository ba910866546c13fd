/**
 * The student handout (`npm run release`), used the way a student uses it. Cut once into a temp
 * folder per use (selftest/handoutCopies.ts): `stubs` exactly as released, `solved` with the
 * reference as student/index.ts, `buggy` with a catalogued mistake (the scale forgotten) as
 * student/index.ts. Each links the project's node_modules, so package.json and package-lock.json
 * are checked here by comparison; the handout installed from them by its own `npm ci`, and every
 * script it ships run in that install, is selftest/classroomDocs.test.ts (a student's clone).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mistakeFile, type Manifest } from '../lib/model/manifest';
import { PROJECT_ROOT } from '../lib/paths';
import { buildHandout, writeHandout, type Handout } from '../lib/release';
import { withCaseTables } from '../lib/readmeTables';
import { keepRegions } from '../lib/text/regions';
import { visibleCases } from '../tests/cases';
import { HANDOUT_RUN_TS, handoutCopies } from './handoutCopies';
import { ASSIGNMENT } from '../tests/assignment';

interface JsonReport {
  numTotalTests: number;
  testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
}

/** What a student receives at the top level, and nothing more. */
const TOP_LEVEL = [
  '.github', '.gitignore', 'README.md', 'adapters', 'docs', 'fixtures', 'lib', 'package-lock.json', 'package.json', 'scripts', 'student',
  'tests', 'tsconfig.json', 'vitest.config.mts',
];

let temp: string;
let handout: Handout;
let stubs: string;
let solved: string;
let buggy: string;

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
const readJson = <T>(dir: string, file: string) => JSON.parse(read(dir, file)) as T;

function filesUnder(dir: string, prefix = ''): string[] {
  return fs.readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const file = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.name === 'node_modules' && !prefix) return [];
    return entry.isDirectory() ? filesUnder(dir, file) : [file];
  });
}

/** Runs `node ...args` in `cwd`; a failing exit is a result to check, not a thrown error. */
function run(cwd: string, args: string[]): Promise<{ code: number; output: string }> {
  const env = { ...process.env };
  // A submission override or CI outputs from the surrounding run must not leak into the handout's.
  delete env.ATTENTION_SUBMISSION;
  delete env.GITHUB_ACTIONS;
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, env, encoding: 'utf8', maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

async function runSuite(dir: string): Promise<JsonReport> {
  const report = path.join(dir, '..', `${path.basename(dir)}-report.json`);
  const { output } = await run(dir, ['node_modules/vitest/vitest.mjs', 'run', '--reporter=json', `--outputFile=${report}`]);
  if (!fs.existsSync(report)) throw new Error(`vitest wrote no report in ${path.basename(dir)}:\n${output}`);
  return JSON.parse(fs.readFileSync(report, 'utf8')) as JsonReport;
}

const assertions = (report: JsonReport) => report.testResults.flatMap((f) => f.assertionResults);

beforeAll(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), 'release-'));
  handout = buildHandout(ASSIGNMENT);
  ({ stubs, solved, buggy } = handoutCopies(ASSIGNMENT, temp, ['stubs', 'solved', 'buggy'], handout));
  const bugs = path.join(PROJECT_ROOT, 'selftest', 'catalogue', 'bugs');
  fs.copyFileSync(path.join(bugs, 'scale_missing.ts'), path.join(buggy, 'student', 'index.ts'));
  fs.copyFileSync(path.join(bugs, 'base.ts'), path.join(buggy, 'student', 'base.ts'));
});

afterAll(() => {
  if (temp) fs.rmSync(temp, { recursive: true, force: true });
});

describe('what the handout holds', () => {
  it('only the allow-listed paths: no reference, hidden fixtures, selftests, CI or instructor scripts', () => {
    const files = filesUnder(stubs);
    expect([...new Set(files.map((file) => file.split('/')[0]))].sort()).toEqual(TOP_LEVEL);
    expect(files.filter((file) => file.startsWith('scripts/'))).toEqual(['scripts/grade.ts', 'scripts/runTs.js', 'scripts/typecheck.ts']);
    expect(files.filter((file) => file.startsWith('fixtures/hidden/') || (file.endsWith('.test.ts') && !file.startsWith('tests/'))))
      .toEqual([]);
    // The student's guide and the page its README shows; the instructors' pages stay behind.
    expect(files.filter((file) => file.startsWith('docs/')).sort()).toEqual(['docs/report-submission.png', 'docs/students.md']);
    for (const gone of ['reference', 'fixtures/hidden', 'selftest', '.ci', 'docs/benchmarks.md', 'lib/similarity', 'vitest.selftest.config.mts', 'lib/release.ts', 'lib/bench', 'lib/gradescope', 'lib/explore', 'lib/batch/merge.ts', 'lib/batch/fetch.ts', 'lib/batch/fetchGit.ts', 'lib/batch/fetchWrite.ts', 'lib/batch/fetchedEntries.ts', 'lib/report/githubBatch.ts', 'classroom']) {
      expect(fs.existsSync(path.join(stubs, gone)), gone).toBe(false);
    }
  });

  it('nothing in it computes attention: no code but the tensor kernels takes an exponential', () => {
    // Every softmax needs exp; the tensor's elementwise exp (lib/tensorKernels.ts) is the student's tool.
    const code = filesUnder(stubs).filter((file) => file.endsWith('.ts') && !file.startsWith('student/') && file !== 'lib/tensorKernels.ts');
    expect(code.filter((file) => /Math\.exp\b|\.exp\(\)/.test(read(stubs, file)))).toEqual([]);
    expect(fs.existsSync(path.join(stubs, 'lib', 'report', 'probabilities.ts'))).toBe(false);
  });

  it('the stubs as committed', () => {
    expect(read(stubs, 'student/index.ts')).toMatch(/throw new NotImplementedError\('scaledDotProductAttention'\)/);
  });

  it('a manifest without hidden entries, in the generator format, whose every file is there (and no other)', () => {
    const text = read(stubs, 'fixtures/manifest.json');
    const manifest = JSON.parse(text) as Manifest;
    expect(text).toBe(`${JSON.stringify(manifest, null, 2)}\n`);
    expect(Object.entries(manifest.fixtures).filter(([key, entry]) => entry.hidden || key.startsWith('hidden/'))).toEqual([]);
    const listed = Object.entries(manifest.fixtures).flatMap(([key, entry]) =>
      [...Object.keys(entry.files), ...Object.keys(entry.mistakes).map(mistakeFile)].map((name) => `fixtures/${key}/${name}`),
    );
    expect(listed.filter((file) => file.includes('/mistakes/')).length).toBeGreaterThan(0);
    const present = filesUnder(stubs).filter((file) => file.startsWith('fixtures/') && file !== 'fixtures/manifest.json');
    expect(present.sort()).toEqual(listed.sort());
    expect(new Set(visibleCases().map((c) => c.fixture))).toEqual(new Set(Object.keys(manifest.fixtures)));
  });

  it('package.json with only test/grade/typecheck and what they use; a lock of exactly those, at the project\'s versions', () => {
    type Pkg = { scripts: Record<string, string>; dependencies: Record<string, string>; devDependencies: Record<string, string> };
    type Lock = { packages: Record<string, { version?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> }> };
    const shipped = readJson<Pkg>(stubs, 'package.json');
    const project = readJson<Pkg>(PROJECT_ROOT, 'package.json');
    expect(Object.keys(shipped.scripts).sort()).toEqual(['grade', 'test', 'typecheck']);
    expect(Object.keys(shipped.dependencies).sort()).toEqual(['npyjs', 'seedrandom']);
    expect(Object.keys(shipped.devDependencies).sort()).toEqual(['@types/node', '@types/seedrandom', 'rolldown', 'typescript', 'vitest']);
    for (const [name, range] of Object.entries({ ...shipped.dependencies, ...shipped.devDependencies })) {
      expect(range, name).toBe(project.dependencies[name] ?? project.devDependencies[name]);
    }
    const lock = readJson<Lock>(stubs, 'package-lock.json');
    const projectLock = readJson<Lock>(PROJECT_ROOT, 'package-lock.json');
    expect(lock.packages[''].dependencies).toEqual(shipped.dependencies);
    expect(lock.packages[''].devDependencies).toEqual(shipped.devDependencies);
    for (const gone of ['playwright-core', 'ajv', 'yaml', '@dodona/dolos-core']) expect(lock.packages[`node_modules/${gone}`], gone).toBeUndefined();
    for (const [key, entry] of Object.entries(lock.packages)) if (key) expect(entry, key).toEqual(projectLock.packages[key]);
  });

  it('its README: the tables made from the case table (a changed point value shows), the heatmap page, what to submit', () => {
    const text = read(stubs, 'README.md');
    expect(text).toContain('npm run grade -- --html                  # then open pages/student.html in a browser');
    expect(text).toContain('![The page of npm run grade -- --html');
    expect(text).toMatch(/\*\*What to submit\*\*: the whole `student\/` folder, `index.ts` and every helper file it imports/);
    for (const c of visibleCases()) expect(text).toContain(`| \`${c.name}\` | ${c.points} |`);
    expect(text).not.toMatch(/_hidden/);
    // The point value of one test changed in (a copy of) the case table: the handout says so.
    const changed = visibleCases().map((c) => (c.name === 'test_causal_mask' ? { ...c, points: 0.75 } : c));
    const handout = buildHandout({ ...ASSIGNMENT, cases: changed }, PROJECT_ROOT).files.get('README.md')!.toString('utf8');
    expect(handout).toContain('| `test_causal_mask` | 0.75 |');
    expect(handout).toContain('| `causalMask(seqLen)` | 1.25 |');
  });

  it("the project's own README holds the tables the case table makes", () => {
    const readme = read(PROJECT_ROOT, 'README.md');
    expect(withCaseTables(readme, ASSIGNMENT)).toBe(readme);
  });

  it('npm run grade -- --help lists only what works in the handout; an instructor flag is one line and the usage, exit 2', async () => {
    const help = await run(stubs, [HANDOUT_RUN_TS, 'scripts/grade.ts', '--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--reference', '--hidden', '--instructor-view', '--similarity']) expect(help.output, flag).not.toContain(flag);
    for (const flag of ['--submission', '--html', '--json', '--submissions', '--timeout']) expect(help.output, flag).toContain(flag);
    const refused = await run(stubs, [HANDOUT_RUN_TS, 'scripts/grade.ts', '--reference']);
    expect(refused.code).toBe(2);
    const [problem, usage, ...more] = refused.output.trim().split('\n');
    expect(problem).toMatch(/^--reference is for instructors: this handout has no reference solution/);
    expect(usage).toMatch(/^usage: npm run grade -- /);
    expect(more).toEqual([]);
  });

  it('tsconfig.json includes only what exists, comments kept', () => {
    const text = read(stubs, 'tsconfig.json');
    const include = JSON.parse(/"include":\s*(\[[^\]]*\])/.exec(text)![1]) as string[];
    expect(include.filter((entry) => !fs.existsSync(path.join(stubs, entry)))).toEqual([]);
    expect(include).toEqual(expect.arrayContaining(['lib', 'adapters', 'tests', 'scripts']));
    expect(text).toContain('// CommonJS on purpose');
    // student/ has its own (npm run typecheck checks both), taken with the stubs from the last commit.
    expect(read(stubs, 'student/tsconfig.json')).toBe(read(PROJECT_ROOT, 'student/tsconfig.json'));
  });

  it("a README: title, the student's commands first, then the project's For students section as written, without the parts that are off", () => {
    const text = read(stubs, 'README.md');
    const project = read(PROJECT_ROOT, 'README.md');
    // The regions of the optional parts that are off are left out (lib/text/regions.ts); the rest is verbatim.
    const asHanded = (markdown: string) => keepRegions(markdown, ASSIGNMENT.parts!.on, ASSIGNMENT.parts!.declared.map((p) => p.id));
    const section = asHanded(project.slice(project.indexOf('## For students'), project.indexOf('\n## ', project.indexOf('## For students'))));
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(text)![1];
    expect(text.split('\n')[0]).toMatch(/^# /);
    expect(firstBlock.split('\n').map((line) => line.split('#')[0].trim()).filter(Boolean))
      .toEqual(['npm ci', 'npm test -- -t scaled_dot_product', 'npm run grade']);
    expect(text).toContain(section.trimEnd());
    expect(text).not.toContain('## For instructors');
    // What the section leaves to the student's guide ships with it, as written.
    expect(text).toContain('(docs/students.md)');
    expect(read(stubs, 'docs/students.md')).toBe(asHanded(read(PROJECT_ROOT, 'docs/students.md')));
  });

  it('refuses a folder that is not empty', () => {
    expect(() => writeHandout(handout, stubs, 'handout')).toThrow('handout is not empty: pick a new folder');
  });
});

describe.concurrent('the handout, used as a student would (its own node_modules link, no network)', () => {
  it('npm test on the stubs: every visible case fails as not implemented', async () => {
    const report = await runSuite(stubs);
    expect(report.numTotalTests).toBe(visibleCases().length);
    const wrong = assertions(report).filter(
      (a) => a.status !== 'failed' || !/is not implemented yet: edit student\/index\.ts/.test(a.failureMessages.join('\n')),
    );
    expect(wrong.map((a) => a.title)).toEqual([]);
  });

  it('npm test with the reference as student/index.ts: every visible case passes', async () => {
    const report = await runSuite(solved);
    expect(report.numTotalTests).toBe(visibleCases().length);
    expect(assertions(report).filter((a) => a.status !== 'passed').map((a) => a.title)).toEqual([]);
  });

  it('npm test with a known mistake: its failures name it (probing the student\'s own function)', async () => {
    const report = await runSuite(buggy);
    const failed = assertions(report).filter((a) => a.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    for (const a of failed) expect(a.failureMessages.join('\n')).toMatch(/Diagnosis: Your scores are not scaled: divide them by √d_k/);
  });
});
