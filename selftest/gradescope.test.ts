/**
 * The Gradescope bundle, used the way Gradescope uses it (selftest/gradescopeKit.ts): built in
 * memory, zipped, unzipped by our reader into <root>/source, then `run_autograder` per submission.
 * Here the project's packages are linked in and setup.sh is only checked to be valid bash: the
 * bundle installed as setup.sh installs it, graded in each setting, is
 * selftest/gradescopeInstall.test.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTOGRADER_ERROR_TEST, DETAILS_LIMIT } from '../lib/gradescope/errorResults';
import { buildBundle } from '../lib/gradescope/bundle';
import { SETUP_PACKAGES } from '../lib/gradescope/launchers';
import { NATIVE_PACKAGES } from '../lib/gradescope/nativePackages';
import { ACTIVE_LTS_RELEASE } from '../lib/gradescope/nodeRelease';
import { readZip, writeZip, type ZipEntry } from '../lib/gradescope/zip';
import { mistakeFile, type Manifest } from '../lib/model/manifest';
import { notRunAfterLoad } from '../lib/model/notRun';
import { PROJECT_ROOT } from '../lib/paths';
import { buildHandout } from '../lib/release';
import { GRADED_CASES } from '../tests/cases';
import { parseLatePolicy, type LatePolicy } from '../lib/late/policy';
import { autograderRoot as rootIn, FULL_MARKS, reference, runAutograder, unpack, type Results } from './gradescopeKit';
import { linkNodeModules } from './linkNodeModules';
import { WITHOUT_SYS_ADMIN } from './simulatedSettings';
import { CAP_CROSSINGS, makeOutside } from './attacks/layouts';
import { ASSIGNMENT } from '../tests/assignment';

/**
 * Of a submission none of whose tests could run: every test still has its row, failed with 0 points;
 * the first visible one says why (returned, to check), and every other names it after its status word.
 */
function saidOnce(tests: Results['tests'], word: string): string {
  expect(tests.map((t) => t.name)).toEqual(GRADED_CASES.map((c) => c.name));
  const first = tests.find((t) => t.visibility === 'visible')!;
  for (const t of tests) expect({ status: t.status, score: t.score }, t.name).toEqual({ status: 'failed', score: 0 });
  const notRun = notRunAfterLoad(first.name);
  // "Not run: the submission could not run…", "Error: not run: the submission could not run…".
  const headline = word === 'Not run' ? `Not run${notRun.slice(word.length)}` : `${word}: ${notRun}`;
  for (const t of tests.filter((other) => other !== first)) expect(t.output, t.name).toBe(headline);
  return first.output;
}
const TOP_LEVEL = [
  '.gitignore', 'adapters', 'autograder-error.json', 'fixtures', 'lib', 'package-lock.json', 'package.json', 'run_autograder',
  'scripts', SETUP_PACKAGES, 'setup.sh', 'tests', 'tsconfig.json', 'vitest.config.mts',
];

let temp: string;
/** The handout cut once: every bundle here but the one that checks the bytes are reproducible is built from it. */
let handout: Map<string, Buffer>;
let zip: Buffer;
let entries: ZipEntry[];
let source: string;

/** A fresh /autograder stand-in whose source is the bundle with the project's packages linked in (or `sourceDir`). */
const autograderRoot = (name: string, files: Record<string, string>, sourceDir = source) => rootIn(path.join(temp, 'runs'), name, files, sourceDir);

beforeAll(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), 'gradescope-'));
  // The contained child runs as nobody when the tests run as root: it must be able to reach its runtime.
  fs.chmodSync(temp, 0o755);
  handout = buildHandout(ASSIGNMENT).files;
  zip = writeZip(buildBundle({ assignment: ASSIGNMENT, handout, nodeVersion: ACTIVE_LTS_RELEASE }));
  entries = readZip(zip);
  source = path.join(temp, 'source');
  unpack(source, entries);
  linkNodeModules(source);
});

afterAll(() => {
  if (temp) fs.rmSync(temp, { recursive: true, force: true });
});

describe('the bundle', () => {
  const names = () => entries.map((e) => e.name);

  it('holds the project as graded: hidden fixtures and the manifest of its cases, no reference, selftests, CI, docs or stubs', () => {
    expect([...new Set(names().map((n) => n.split('/')[0]))].sort()).toEqual(TOP_LEVEL);
    expect(names().filter((n) => /^(reference|selftest|\.ci|docs|student)\//.test(n) || n.endsWith('.test.ts') && !n.startsWith('tests/')))
      .toEqual([]);
    expect(names().filter((n) => n.startsWith('scripts/')).sort()).toEqual([
      'scripts/autograde-failed.js', 'scripts/autograde.ts', 'scripts/check-packages.ts', 'scripts/grade.ts',
      'scripts/runTs.js', 'scripts/typecheck-snapshot.ts',
    ]);
    // The project's manifest, in its own layout, less the fixtures of the parts that are off (tests/parts.ts).
    const project = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'fixtures', 'manifest.json'), 'utf8')) as Manifest;
    const used = new Set(GRADED_CASES.map((c) => c.fixture));
    const manifest = { ...project, fixtures: Object.fromEntries(Object.entries(project.fixtures).filter(([key]) => used.has(key))) };
    expect(entries.find((e) => e.name === 'fixtures/manifest.json')!.data.toString('utf8')).toBe(`${JSON.stringify(manifest, null, 2)}\n`);
    expect(Object.keys(manifest.fixtures).length).toBe(used.size);
    const listed = Object.entries(manifest.fixtures).flatMap(([key, entry]) =>
      [...Object.keys(entry.files), ...Object.keys(entry.mistakes ?? {}).map(mistakeFile)].map((file) => `fixtures/${key}/${file}`),
    );
    expect(names().filter((n) => n.startsWith('fixtures/') && n !== 'fixtures/manifest.json').sort()).toEqual(listed.sort());
    expect(listed.filter((n) => n.startsWith('fixtures/hidden/')).length).toBeGreaterThan(0);
  });

  it('setup.sh, its install step and run_autograder: executable, valid bash, the Active LTS release pinned, packages from the lock file, optional ones kept', () => {
    for (const name of ['setup.sh', SETUP_PACKAGES, 'run_autograder']) {
      expect(entries.find((e) => e.name === name)!.mode).toBe(0o755);
      const check = spawnSync('bash', ['-n', path.join(source, name)], { encoding: 'utf8' });
      expect(check.stderr, name).toBe('');
      expect(check.status, name).toBe(0);
    }
    const setup = fs.readFileSync(path.join(source, 'setup.sh'), 'utf8');
    expect(setup).toContain(`\nNODE_VERSION=${ACTIVE_LTS_RELEASE}\n`);
    // The tarball is checked against the sha256 nodejs.org publishes for exactly that file.
    expect(setup).toContain('curl -fsSL "https://nodejs.org/dist/${NODE_VERSION}/SHASUMS256.txt" | grep " ${tarball}$" | sha256sum -c -');
    // Once Node is there, the install step, a script of its own that gradescopeInstall.test.ts runs as it is.
    expect(setup.trim().split('\n').slice(-2)).toEqual(['node --version', `bash ${SETUP_PACKAGES}`]);
    const install = fs.readFileSync(path.join(source, SETUP_PACKAGES), 'utf8').trim().split('\n').filter((line) => !line.startsWith('#'));
    expect(install.slice(-3)[0]).toMatch(/^npm ci( --no-(audit|fund))*$/);
    expect(install.slice(-2)[0]).toBe('node scripts/runTs.js scripts/check-packages.ts');
    // Then the type check's snapshot, built in the image for every submission's check (lib/typecheck/snapshot.ts), by a script the bundle holds.
    expect(install.slice(-1)[0]).toMatch(/^node scripts\/runTs\.js scripts\/typecheck-snapshot\.ts \|\| echo /);
    expect(names()).toContain('scripts/typecheck-snapshot.ts');
  });

  it('a package with native code the grader needs that the bundle\'s package.json leaves out: the bundle is refused, naming it', () => {
    const pkg = JSON.parse(handout.get('package.json')!.toString('utf8')) as Record<string, Record<string, string>>;
    for (const { name } of NATIVE_PACKAGES) {
      const without = Object.fromEntries(Object.entries(pkg).map(([key, value]) =>
        [key, key.endsWith('ependencies') ? Object.fromEntries(Object.entries(value).filter(([dep]) => dep !== name)) : value]));
      const lacking = new Map(handout).set('package.json', Buffer.from(JSON.stringify(without)));
      expect(() => buildBundle({ assignment: ASSIGNMENT, handout: lacking, nodeVersion: ACTIVE_LTS_RELEASE }), name)
        .toThrow(new RegExp(`package\\.json does not list ${name}, whose native code the grader loads`));
    }
  });

  it('setup.sh installs a release of a supported LTS line only (Node 20 reached end of life)', () => {
    for (const ok of ['v22.23.3', 'v26.10.0']) expect(() => buildBundle({ assignment: ASSIGNMENT, handout, nodeVersion: ok })).not.toThrow();
    for (const refused of ['v20.20.2', 'v25.1.0', '24.21.0', 'v24']) {
      expect(() => buildBundle({ assignment: ASSIGNMENT, handout, nodeVersion: refused }), refused).toThrow(/is not a release of a supported LTS line \(22, 24, 26\)/);
    }
  });

  it('the same sources give the same bytes', () => {
    expect(writeZip(buildBundle({ assignment: ASSIGNMENT, handout: buildHandout(ASSIGNMENT).files, nodeVersion: ACTIVE_LTS_RELEASE })).equals(zip)).toBe(true);
  });

  const unzip = spawnSync('unzip', ['-v'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!unzip)('Info-ZIP unzip finds it sound (skipped where unzip is not installed)', () => {
    const file = path.join(temp, 'bundle.zip');
    fs.writeFileSync(file, zip);
    const test = spawnSync('unzip', ['-tq', file], { encoding: 'utf8' });
    expect(test.stdout).toMatch(/^No errors detected/);
  });
});

const catalogue = (...parts: string[]) => fs.readFileSync(path.join(PROJECT_ROOT, 'selftest', ...parts), 'utf8');
const helpers = { 'base.ts': catalogue('catalogue', 'bugs', 'base.ts'), 'loops.ts': catalogue('catalogue', 'bugs', 'loops.ts') };
const IS_ROOT = process.getuid?.() === 0;

describe.concurrent('run_autograder, one fresh root per submission', () => {
  it('a submission without index.ts: 0, and every test says what to upload', async () => {
    const { results } = await runAutograder(autograderRoot('no_index', { 'attention.ts': reference() }));
    expect(results.score).toBe(0);
    expect(results.output).toMatch(/^Your submission could not be run/);
    expect(saidOnce(results.tests, 'Error')).toMatch(/holds no index\.ts \(nor student\/index\.ts up to \d folders down\)/);
  });

  it('student/index.ts with a syntax error: 0, the error named with its line', async () => {
    const broken = reference().replace('export function causalMask(seqLen: number): Tensor {', 'export function causalMask(seqLen: number): Tensor {{{');
    const { results } = await runAutograder(autograderRoot('syntax_error', { 'student/index.ts': broken }));
    expect(results.score).toBe(0);
    expect(results.output).toMatch(/syntax error at student\/index\.ts:\d+:\d+: /);
    expect(saidOnce(results.tests, 'Error')).toMatch(/^Error: the submission failed to load/);
  });

  it('a helper nested 20,000 deep (it once ended the autograder with SIGSEGV): 0, the first test names the file and the place, the others name it', async () => {
    const files = { 'index.ts': `import './deep';\n${reference()}`, 'deep.ts': `export const zz = ${'('.repeat(20_000)}1${')'.repeat(20_000)};\n` };
    const { results } = await runAutograder(autograderRoot('nested_too_deep', files));
    expect(results.score).toBe(0);
    expect(saidOnce(results.tests, 'Error')).toMatch(/^Error: the submission failed to load: nesting too deep at submission\/deep\.ts:1:\d+: /);
  });

  it('process.exit while loading: 0, every test crashed with the reason', async () => {
    const { results } = await runAutograder(autograderRoot('exit_at_import', { 'index.ts': `${reference()}\nprocess.exit(3);\n` }));
    expect(results.score).toBe(0);
    expect(saidOnce(results.tests, 'Crashed')).toMatch(/^Crashed: .*while loading the submission: it exited with code 3/);
  });

  it('a file name that is not UTF-8 in the upload: the submission is refused with the name, not an "Autograder error"', async () => {
    const root = autograderRoot('not_utf8', { 'index.ts': reference() });
    fs.writeFileSync(Buffer.concat([Buffer.from(path.join(root, 'submission', 'notes')), Buffer.of(0xff), Buffer.from('.ts')]), '// mine\n');
    const { results } = await runAutograder(root);
    expect(results.score).toBe(0);
    expect(saidOnce(results.tests, 'Not run')).toMatch(/^Not run: .*"notes\\xFF\.ts" has a name that is not UTF-8 text .*: rename it/);
  });

  // The intake is the one every path takes (the attacks grade every crossing, in every setting, selftest/attacks/layouts.ts): one here, through Gradescope's.
  it.each(['entries_past_the_cap_between_listings'])('an upload that crosses the intake\'s cap, as a "Download ZIP" of the repository: %s', async (name) => {
    const root = autograderRoot(`cap-${name}`, {});
    const student = path.join(root, 'submission', 'attention-main', 'student');
    fs.mkdirSync(student, { recursive: true });
    CAP_CROSSINGS[name].build(student, makeOutside(path.join(root, 'elsewhere')));
    const { results } = await runAutograder(root);
    expect(results.score).toBe(0);
    expect(saidOnce(results.tests, 'Not run')).toMatch(CAP_CROSSINGS[name].reason);
  });

  // One grading holds both: a buggy submission's points, and the late policy taken from what is left of them.
  it('a buggy submission (scale missing), late, in Gradescope\'s container (root without CAP_SYS_ADMIN) when the tests run as root: it loses the attention points and keeps the others; the late policy in the bundle takes its penalty for the metadata\'s time and the student\'s own due date from what is left', async () => {
    const late = path.join(temp, 'source-late');
    const policy = parseLatePolicy('per=day,penalty=10%,cap=50%,grace=15m', false) as LatePolicy;
    unpack(late, buildBundle({ assignment: ASSIGNMENT, handout, nodeVersion: ACTIVE_LTS_RELEASE, latePolicy: policy }));
    linkNodeModules(late);
    const files = { ...helpers, 'index.ts': catalogue('catalogue', 'bugs', 'scale_missing.ts') };
    const root = autograderRoot('late_buggy', files, late);
    // Due on the 1st for the class, the 2nd for this student (an extension); made 1 day 1 h after that: 2 started days, 20% of the points.
    fs.writeFileSync(path.join(root, 'submission_metadata.json'), JSON.stringify({
      id: 1, created_at: '2026-12-03T23:59:00.000000-05:00',
      assignment: { due_date: '2026-12-01T22:59:00.000000-05:00', late_due_date: '2026-12-08T22:59:00.000000-05:00', title: 'Attention' },
      users: [{ email: 's@example.com', id: 7, name: 'S', assignment: { due_date: '2026-12-02T22:59:00.000000-05:00', late_due_date: null } }],
    }));
    const { results } = await runAutograder(root, { prefix: IS_ROOT ? WITHOUT_SYS_ADMIN : [] });
    const byName = new Map(results.tests.map((t) => [t.name, t]));
    for (const c of GRADED_CASES) {
      const test = byName.get(c.name)!;
      if (c.fn === 'softmax' || c.fn === 'causal_mask') expect(test.score, c.name).toBe(c.points);
    }
    expect(byName.get('test_scaled_dot_product_attention')!.score).toBe(0);
    // The tests keep what they earned; the penalty (20% of 14.5) comes off their sum, which is more than it.
    const earned = results.tests.reduce((sum, t) => sum + t.score, 0);
    expect(earned).toBeGreaterThan(FULL_MARKS * 0.2);
    expect(earned).toBeLessThan(FULL_MARKS);
    expect(results.score).toBeCloseTo(earned - FULL_MARKS * 0.2, 5);
    const said = /^Late policy: 1 day 1 h late \(2 days at 10% a day\): −2\.9 points; score ([\d.]+)\/14\.5 after it\.$/m.exec(results.output);
    expect(said, results.output).not.toBeNull();
    expect(Math.abs(Number(said![1]) - results.score)).toBeLessThan(0.05);
  });

  it('a tampered fixture: "Autograder error" for students, the cause in a hidden test', async () => {
    const tampered = path.join(temp, 'source-tampered');
    unpack(tampered, entries);
    linkNodeModules(tampered);
    fs.appendFileSync(path.join(tampered, 'fixtures', 'hidden', 'causal_mask', 'expected.npy'), '\0');
    const { results } = await runAutograder(autograderRoot('tampered', { 'index.ts': reference() }, tampered));
    expect(results.score).toBe(0);
    expect(results.tests.map((t) => [t.name, t.visibility])).toEqual([
      [AUTOGRADER_ERROR_TEST, 'visible'], [`${AUTOGRADER_ERROR_TEST}: details for instructors`, 'hidden'],
    ]);
    expect(results.tests[0]).toMatchObject({ score: 0, max_score: FULL_MARKS });
    expect(results.tests[0].output).toContain('not a problem with your code');
    expect(results.tests[1].output).toMatch(/causal_mask\/expected\.npy: sha256 does not match/);
  });

  it('Node cannot start the autograder (no packages): the "Autograder error" result, with what Node printed for instructors', async () => {
    const bare = path.join(temp, 'source-bare');
    unpack(bare, entries);
    const { results } = await runAutograder(autograderRoot('bare', { 'index.ts': reference() }, bare));
    const bundled = JSON.parse(fs.readFileSync(path.join(bare, 'autograder-error.json'), 'utf8')) as typeof results;
    expect({ ...results, tests: results.tests.slice(0, 1) }).toEqual({ ...bundled, tests: bundled.tests.slice(0, 1) });
    expect(results.tests[0]).toMatchObject({ name: AUTOGRADER_ERROR_TEST, score: 0, visibility: 'visible' });
    expect(results.tests[1]).toMatchObject({ name: bundled.tests[1].name, visibility: 'hidden' });
    expect(results.tests[1].output).toMatch(/^run_autograder: scripts\/autograde\.ts ended with exit code 1 and wrote no results\.json; what Node printed on stderr:\n\n/);
    expect(results.tests[1].output).toMatch(/Cannot find module 'typescript\/package\.json'/);
  });

  it('what Node printed is bounded: its end kept, where Node prints the error that ended it', async () => {
    const noisy = path.join(temp, 'source-noisy');
    unpack(noisy, entries);
    linkNodeModules(noisy);
    // A grader that floods stderr, then dies before it writes anything.
    fs.writeFileSync(path.join(noisy, 'scripts', 'autograde.ts'), `process.stderr.write('x'.repeat(${3 * DETAILS_LIMIT}));\nthrow new Error('the end of it');\n`);
    const { results } = await runAutograder(autograderRoot('noisy', { 'index.ts': reference() }, noisy));
    const details = results.tests[1].output;
    expect(details.length).toBeLessThan(DETAILS_LIMIT + 400);
    expect(details).toMatch(/\[… \d+ characters left out …\]\n/);
    expect(details).toContain('Error: the end of it');
  });

  it('Node cannot run at all: the bundled "Autograder error" result as it is', async () => {
    const tools = path.join(temp, 'no-node-tools');
    fs.mkdirSync(tools);
    // What run_autograder runs besides Node, and no node.
    for (const tool of ['bash', 'mkdir', 'rm', 'cp', 'cat', 'mktemp']) {
      const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      fs.symlinkSync(found, path.join(tools, tool));
    }
    const { results } = await runAutograder(autograderRoot('no_node', { 'index.ts': reference() }), { env: { PATH: tools } });
    expect(results).toEqual(JSON.parse(fs.readFileSync(path.join(source, 'autograder-error.json'), 'utf8')));
    expect(results.tests[1].output).toMatch(/^run_autograder: Node itself could not run/);
  });
});

describe.runIf(IS_ROOT).concurrent('run_autograder as root without CAP_SYS_ADMIN, as in Gradescope\'s container', () => {
  it('a hostile submission (forges results.json and grades.csv): no more than it earns, and the results are the grader\'s', async () => {
    const files = { ...helpers, 'index.ts': catalogue('attacks', 'forge_results.ts'), 'kit.ts': catalogue('attacks', 'kit.ts') };
    const { results } = await runAutograder(autograderRoot('docker_hostile', files), { prefix: WITHOUT_SYS_ADMIN });
    expect(results.score).toBe(0);
    expect(results.tests.map((t) => t.name)).toEqual(GRADED_CASES.map((c) => c.name));
    for (const t of results.tests) expect(t.status, t.name).toBe('failed');
  });
});
