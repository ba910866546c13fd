/**
 * The Gradescope bundle, used the way Gradescope uses it: built in memory, zipped, unzipped by our
 * reader into <root>/source, then `run_autograder` (bash) per submission with AUTOGRADER_ROOT=<root>
 * in place of /autograder. setup.sh is not run (it installs Node and needs the network): the
 * project's packages are linked instead, and setup.sh is only checked to be valid bash.
 * Every results.json must validate against lib/report/gradescope.schema.json.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTOGRADER_ERROR_TEST } from '../lib/gradescope/errorResults';
import { buildBundle } from '../lib/gradescope/bundle';
import { ACTIVE_LTS_RELEASE } from '../lib/gradescope/nodeRelease';
import { readZip, writeZip, type ZipEntry } from '../lib/gradescope/zip';
import { mistakeFile, type Manifest } from '../lib/model/manifest';
import { PROJECT_ROOT } from '../lib/paths';
import { buildHandout } from '../lib/release';
import { GRADED_CASES } from '../tests/cases';
import { parseLatePolicy, type LatePolicy } from '../lib/late/policy';
import { linkNodeModules } from './linkNodeModules';

interface Results {
  score: number;
  output: string;
  extra_data?: { containment?: { setting: string; missing: string[] } };
  tests: { name: string; score: number; max_score: number; status: string; output: string; visibility: string }[];
}

const schema: object = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'lib/report/gradescope.schema.json'), 'utf8'));
const validate = new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(schema);
const FULL_MARKS = GRADED_CASES.reduce((sum, c) => sum + c.points, 0);
const TOP_LEVEL = [
  '.gitignore', 'adapters', 'autograder-error.json', 'fixtures', 'lib', 'package-lock.json', 'package.json', 'run_autograder',
  'scripts', 'setup.sh', 'tests', 'tsconfig.json', 'vitest.config.mts',
];

let temp: string;
let zip: Buffer;
let entries: ZipEntry[];
let source: string;

function unpack(dir: string, files: readonly ZipEntry[]): void {
  for (const entry of files) {
    const file = path.join(dir, ...entry.name.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, entry.data, { mode: entry.mode });
  }
}

/** A fresh /autograder stand-in: `source` links to an unpacked bundle; `files` are the submission. */
function autograderRoot(name: string, files: Record<string, string>, sourceDir = source): string {
  const root = path.join(temp, 'runs', name);
  fs.mkdirSync(path.join(root, 'submission'), { recursive: true });
  fs.symlinkSync(sourceDir, path.join(root, 'source'));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, 'submission', file)), { recursive: true });
    fs.writeFileSync(path.join(root, 'submission', file), text);
  }
  return root;
}

/** Runs run_autograder as Gradescope does and returns the results.json it left, checked against the schema. */
function runAutograder(root: string, prefix: readonly string[] = []): Promise<{ results: Results; log: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, AUTOGRADER_ROOT: root };
  delete env.GITHUB_ACTIONS;
  const [file, ...args] = [...prefix, 'bash', path.join(root, 'source', 'run_autograder')];
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, encoding: 'utf8' }, (_err, stdout, stderr) => {
      const file = path.join(root, 'results', 'results.json');
      if (!fs.existsSync(file)) return reject(new Error(`no results.json:\n${stdout}${stderr}`));
      const results = JSON.parse(fs.readFileSync(file, 'utf8')) as Results;
      const ok = validate(results);
      if (!ok) return reject(new Error(`results.json fails the schema: ${JSON.stringify(validate.errors)}`));
      resolve({ results, log: `${stdout}${stderr}` });
    });
  });
}

beforeAll(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), 'gradescope-'));
  // The contained child runs as nobody when the tests run as root: it must be able to reach its runtime.
  fs.chmodSync(temp, 0o755);
  zip = writeZip(buildBundle({ handout: buildHandout().files, nodeVersion: ACTIVE_LTS_RELEASE }));
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

  it('holds the project as graded: hidden fixtures and the full manifest, no reference, selftests, CI, docs or stubs', () => {
    expect([...new Set(names().map((n) => n.split('/')[0]))].sort()).toEqual(TOP_LEVEL);
    expect(names().filter((n) => /^(reference|selftest|\.ci|docs|student)\//.test(n) || n.endsWith('.test.ts') && !n.startsWith('tests/')))
      .toEqual([]);
    expect(names().filter((n) => n.startsWith('scripts/')).sort()).toEqual(['scripts/autograde.ts', 'scripts/cachedTranspiler.js', 'scripts/grade.ts', 'scripts/typecheck-snapshot.ts']);
    const manifest = fs.readFileSync(path.join(PROJECT_ROOT, 'fixtures', 'manifest.json'));
    expect(entries.find((e) => e.name === 'fixtures/manifest.json')!.data.equals(manifest)).toBe(true);
    const listed = Object.entries((JSON.parse(manifest.toString('utf8')) as Manifest).fixtures).flatMap(([key, entry]) =>
      [...Object.keys(entry.files), ...Object.keys(entry.mistakes ?? {}).map(mistakeFile)].map((file) => `fixtures/${key}/${file}`),
    );
    expect(names().filter((n) => n.startsWith('fixtures/') && n !== 'fixtures/manifest.json').sort()).toEqual(listed.sort());
    expect(listed.filter((n) => n.startsWith('fixtures/hidden/')).length).toBeGreaterThan(0);
  });

  it('setup.sh and run_autograder: executable, valid bash, the Active LTS release pinned, packages from the lock file', () => {
    for (const name of ['setup.sh', 'run_autograder']) {
      expect(entries.find((e) => e.name === name)!.mode).toBe(0o755);
      const check = spawnSync('bash', ['-n', path.join(source, name)], { encoding: 'utf8' });
      expect(check.stderr, name).toBe('');
      expect(check.status, name).toBe(0);
    }
    const setup = fs.readFileSync(path.join(source, 'setup.sh'), 'utf8');
    expect(setup).toContain(`\nNODE_VERSION=${ACTIVE_LTS_RELEASE}\n`);
    // The tarball is checked against the sha256 nodejs.org publishes for exactly that file.
    expect(setup).toContain('curl -fsSL "https://nodejs.org/dist/${NODE_VERSION}/SHASUMS256.txt" | grep " ${tarball}$" | sha256sum -c -');
    expect(setup).toMatch(/^npm ci --omit=optional$/m);
    // Then the type check's snapshot, built in the image for every submission's check (lib/typecheck/snapshot.ts), by a script the bundle holds.
    expect(setup.trim().split('\n').pop()).toMatch(/^node node_modules\/ts-node\/dist\/bin\.js scripts\/typecheck-snapshot\.ts \|\| echo /);
    expect(names()).toContain('scripts/typecheck-snapshot.ts');
  });

  it('setup.sh installs a release of a supported LTS line only (Node 20 reached end of life)', () => {
    const handout = buildHandout().files;
    for (const ok of ['v22.23.3', 'v26.10.0']) expect(() => buildBundle({ handout, nodeVersion: ok })).not.toThrow();
    for (const refused of ['v20.20.2', 'v25.1.0', '24.21.0', 'v24']) {
      expect(() => buildBundle({ handout, nodeVersion: refused }), refused).toThrow(/is not a release of a supported LTS line \(22, 24, 26\)/);
    }
  });

  it('the same sources give the same bytes', () => {
    expect(writeZip(buildBundle({ handout: buildHandout().files, nodeVersion: ACTIVE_LTS_RELEASE })).equals(zip)).toBe(true);
  });

  const unzip = spawnSync('unzip', ['-v'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!unzip)('Info-ZIP unzip finds it sound (skipped where unzip is not installed)', () => {
    const file = path.join(temp, 'bundle.zip');
    fs.writeFileSync(file, zip);
    const test = spawnSync('unzip', ['-tq', file], { encoding: 'utf8' });
    expect(test.stdout).toMatch(/^No errors detected/);
  });
});

describe.concurrent('run_autograder, one fresh root per submission', () => {
  const reference = () => fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8');

  it('the reference as index.ts: full marks, hidden cases included and shown after publication', async () => {
    const { results } = await runAutograder(autograderRoot('reference', { 'index.ts': reference() }));
    expect(results.score).toBe(FULL_MARKS);
    expect(FULL_MARKS).toBe(14.5);
    expect(results.tests.map((t) => t.name)).toEqual(GRADED_CASES.map((c) => c.name));
    expect(results.tests.filter((t) => t.status !== 'passed')).toEqual([]);
    const hidden = new Set(GRADED_CASES.filter((c) => c.hidden).map((c) => c.name));
    expect(results.tests.map((t) => t.visibility)).toEqual(
      results.tests.map((t) => (hidden.has(t.name) ? 'after_published' : 'visible')),
    );
  });

  it('a submission without index.ts: 0, and every test says what to upload', async () => {
    const { results } = await runAutograder(autograderRoot('no_index', { 'attention.ts': reference() }));
    expect(results.score).toBe(0);
    expect(results.output).toMatch(/^Your submission could not be run/);
    expect(results.tests).toHaveLength(GRADED_CASES.length);
    for (const t of results.tests) expect(t.output).toMatch(/holds no index\.ts \(nor student\/index\.ts up to \d folders down\)/);
  });

  it('student/index.ts with a syntax error: 0, the error named with its line', async () => {
    const broken = reference().replace('export function causalMask(seqLen: number): Tensor {', 'export function causalMask(seqLen: number): Tensor {{{');
    const { results } = await runAutograder(autograderRoot('syntax_error', { 'student/index.ts': broken }));
    expect(results.score).toBe(0);
    expect(results.output).toMatch(/syntax error at student\/index\.ts:\d+:\d+: /);
    for (const t of results.tests) expect(t.output).toMatch(/^Error: the submission failed to load/);
  });

  it('a helper nested 20,000 deep (it once ended the autograder with SIGSEGV): 0, every test names the file and the place', async () => {
    const files = { 'index.ts': `import './deep';\n${reference()}`, 'deep.ts': `export const zz = ${'('.repeat(20_000)}1${')'.repeat(20_000)};\n` };
    const { results } = await runAutograder(autograderRoot('nested_too_deep', files));
    expect(results.score).toBe(0);
    expect(results.tests).toHaveLength(GRADED_CASES.length);
    for (const t of results.tests) expect(t.output).toMatch(/^Error: the submission failed to load: nesting too deep at submission\/deep\.ts:1:\d+: /);
  });

  it('process.exit while loading: 0, every test crashed with the reason', async () => {
    const { results } = await runAutograder(autograderRoot('exit_at_import', { 'index.ts': `${reference()}\nprocess.exit(3);\n` }));
    expect(results.score).toBe(0);
    for (const t of results.tests) expect(t.output).toMatch(/^Crashed: .*while loading the submission: it exited with code 3/);
  });

  it('a file name that is not UTF-8 in the upload: the submission is refused with the name, not an "Autograder error"', async () => {
    const root = autograderRoot('not_utf8', { 'index.ts': reference() });
    fs.writeFileSync(Buffer.concat([Buffer.from(path.join(root, 'submission', 'notes')), Buffer.of(0xff), Buffer.from('.ts')]), '// mine\n');
    const { results } = await runAutograder(root);
    expect(results.score).toBe(0);
    expect(results.tests).toHaveLength(GRADED_CASES.length);
    for (const t of results.tests) expect(t.output).toMatch(/^Not run: .*"notes\\xFF\.ts" has a name that is not UTF-8 text .*: rename it/);
  });

  it('a late policy in the bundle: the score is what is left after the penalty for the metadata\'s time and the student\'s own due date', async () => {
    const late = path.join(temp, 'source-late');
    const policy = parseLatePolicy('per=day,penalty=10%,cap=50%,grace=15m', false) as LatePolicy;
    unpack(late, buildBundle({ handout: buildHandout().files, nodeVersion: ACTIVE_LTS_RELEASE, latePolicy: policy }));
    linkNodeModules(late);
    const root = autograderRoot('late', { 'index.ts': reference() }, late);
    // Due on the 1st for the class, the 2nd for this student (an extension); made 1 day 1 h after that: 2 started days, 20%.
    fs.writeFileSync(path.join(root, 'submission_metadata.json'), JSON.stringify({
      id: 1, created_at: '2026-12-03T23:59:00.000000-05:00',
      assignment: { due_date: '2026-12-01T22:59:00.000000-05:00', late_due_date: '2026-12-08T22:59:00.000000-05:00', title: 'Attention' },
      users: [{ email: 's@example.com', id: 7, name: 'S', assignment: { due_date: '2026-12-02T22:59:00.000000-05:00', late_due_date: null } }],
    }));
    const { results } = await runAutograder(root);
    expect(results.tests.every((t) => t.status === 'passed')).toBe(true);
    expect(results.score).toBeCloseTo(FULL_MARKS * 0.8, 9);
    expect(results.output).toMatch(/^Late policy: 1 day 1 h late \(2 days at 10% a day\): −2\.9 points; score 11\.6\/14\.5 after it\.$/m);
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

  it('Node cannot start the autograder (no packages): the bundled "Autograder error" result', async () => {
    const bare = path.join(temp, 'source-bare');
    unpack(bare, entries);
    const { results } = await runAutograder(autograderRoot('bare', { 'index.ts': reference() }, bare));
    expect(results).toEqual(JSON.parse(fs.readFileSync(path.join(bare, 'autograder-error.json'), 'utf8')));
    expect(results.tests[0]).toMatchObject({ name: AUTOGRADER_ERROR_TEST, score: 0, visibility: 'visible' });
    expect(results.tests[1].output).toContain('setup.sh');
  });
});

/** Docker's default for root: no CAP_SYS_ADMIN, so `unshare` and `mount` fail (Gradescope's own container). */
const WITHOUT_SYS_ADMIN = ['setpriv', '--bounding-set', '-sys_admin', '--inh-caps', '-sys_admin', '--'];
const catalogue = (...parts: string[]) => fs.readFileSync(path.join(PROJECT_ROOT, 'selftest', ...parts), 'utf8');

describe.runIf(process.getuid?.() === 0).concurrent('run_autograder as root without CAP_SYS_ADMIN, as in Gradescope\'s container', () => {
  const helpers = { 'base.ts': catalogue('catalogue', 'bugs', 'base.ts'), 'loops.ts': catalogue('catalogue', 'bugs', 'loops.ts') };

  it('the reference: full marks, graded with a uid and a root folder of its own per child, and the log says so', async () => {
    const { results, log } = await runAutograder(autograderRoot('docker_reference', { 'index.ts': fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8') }), WITHOUT_SYS_ADMIN);
    expect(results.score, log).toBe(FULL_MARKS);
    expect(results.extra_data?.containment?.setting).toBe('own-uids');
    expect(log).toMatch(/autograde: Containment: root without namespaces/);
  });

  it('a buggy submission (scale missing): it loses the attention points and keeps the others', async () => {
    const files = { ...helpers, 'index.ts': catalogue('catalogue', 'bugs', 'scale_missing.ts') };
    const { results } = await runAutograder(autograderRoot('docker_buggy', files), WITHOUT_SYS_ADMIN);
    const byName = new Map(results.tests.map((t) => [t.name, t]));
    for (const c of GRADED_CASES) {
      const test = byName.get(c.name)!;
      if (c.fn === 'softmax' || c.fn === 'causal_mask') expect(test.score, c.name).toBe(c.points);
    }
    expect(byName.get('test_scaled_dot_product_attention')!.score).toBe(0);
    expect(results.score).toBeLessThan(FULL_MARKS);
  });

  it('a hostile submission (forges results.json and grades.csv): no more than it earns, and the results are the grader\'s', async () => {
    const files = { ...helpers, 'index.ts': catalogue('attacks', 'forge_results.ts'), 'kit.ts': catalogue('attacks', 'kit.ts') };
    const { results } = await runAutograder(autograderRoot('docker_hostile', files), WITHOUT_SYS_ADMIN);
    expect(results.score).toBe(0);
    expect(results.tests.map((t) => t.name)).toEqual(GRADED_CASES.map((c) => c.name));
    for (const t of results.tests) expect(t.status, t.name).toBe('failed');
  });
});
