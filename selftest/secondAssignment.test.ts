/**
 * A second assignment graded end to end from its declaration alone (selftest/assignments/norms:
 * layerNorm, and topK returning values and indices; no diagnosis): each path an instructor or a
 * student takes, run once as they run it, with GRADER_ASSIGNMENT naming its folder. Its fixtures
 * against a float64 computation of this file's own; npm test on the reference, the stubs and two
 * copies with mistakes; npm run grade; a batch with the hidden cases graded as two shards and merged
 * (where each copy's words are held to npm test's); the Gradescope bundle and its run_autograder. Nothing in lib/ names it (selftest/architecture.test.ts).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assignment } from '../lib/grading/assignment';
import { readZip } from '../lib/gradescope/zip';
import { readNpy } from '../lib/npy';
import { PROJECT_ROOT, RUN_TS } from '../lib/paths';
import { withCaseTables } from '../lib/readmeTables';
import { buildHandout } from '../lib/release';
import { csvRecords } from '../lib/report/exports';
import { Tensor } from '../lib/tensor';
import { autograderRoot, runAutograder, unpack } from './gradescopeKit';
import { tempDir } from './grader/materialize';
import { linkNodeModules } from './linkNodeModules';

const NORMS = path.join(PROJECT_ROOT, 'selftest', 'assignments', 'norms');
const VISIBLE = ['test_layer_norm', 'test_layer_norm_batch_dims', 'test_layer_norm_eps', 'test_top_k', 'test_top_k_ties', 'test_top_k_batch_dims_all'];
const HIDDEN = ['test_layer_norm_hidden', 'test_top_k_hidden'];
/** What forgetting eps and moving every index by one cost: eps matters where the variance is small, and every top-k case reads indices. */
const BUGGY_FAILS = ['test_layer_norm_eps', 'test_top_k', 'test_top_k_ties', 'test_top_k_batch_dims_all', 'test_layer_norm_hidden', 'test_top_k_hidden'];
/** Words only the attention assignment's diagnosis says: a norms failure gets the harness's generic notes. */
const ATTENTION_WORDS = /attention|softmax|causal|mask|heads|quer|√d|scal/i;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node args…` from the project's root with the norms assignment chosen; a failing exit is a result to check. */
function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const full: NodeJS.ProcessEnv = { ...process.env, GRADER_ASSIGNMENT: NORMS, ...env };
  delete full.GITHUB_ACTIONS;
  if (!env.ATTENTION_SUBMISSION) delete full.ATTENTION_SUBMISSION;
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: PROJECT_ROOT, env: full, encoding: 'utf8', maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}
const script = (name: string, args: string[]) => run([RUN_TS, path.join('scripts', `${name}.ts`), ...args]);

let work: string;
let submissions: string;
/** The three submissions, each a folder as a student hands it in. */
const folder = (name: string) => path.join(submissions, name);

/**
 * Mistakes students make, each copy the reference with two of them. buggy: eps left out of the
 * root, every index one too far. reversed: the unbiased variance (n − 1), the k largest smallest
 * first. Each replacement must find its line, or a copy would be the reference itself.
 */
const MISTAKES: Record<string, [string, string][]> = {
  buggy: [
    ['variance.add(eps).sqrt()', 'variance.sqrt()'],
    ['indices[r * k + j] = order[j];', 'indices[r * k + j] = order[j] + 1;'],
  ],
  reversed: [
    ['centred.mul(centred).mean(-1, true)', 'centred.mul(centred).sum(-1, true).div(x.shape[x.ndim - 1] - 1)'],
    ['values[r * k + j] = x.data[r * n + order[j]];', 'values[r * k + j] = x.data[r * n + order[k - 1 - j]];'],
    ['indices[r * k + j] = order[j];', 'indices[r * k + j] = order[k - 1 - j];'],
  ],
};

function mistaken(reference: string, name: string): string {
  return MISTAKES[name].reduce((text, [from, to]) => {
    if (!text.includes(from)) throw new Error(`the norms reference no longer has "${from}": update this self-test's ${name} copy`);
    return text.replace(from, to);
  }, reference);
}

beforeAll(() => {
  work = tempDir('second-assignment');
  // The contained child runs as nobody when the tests run as root: it must reach what it is given.
  fs.chmodSync(work, 0o755);
  submissions = path.join(work, 'submissions');
  fs.mkdirSync(submissions);
  fs.cpSync(path.join(NORMS, 'reference', 'index.ts'), path.join(folder('ref'), 'index.ts'));
  fs.cpSync(path.join(NORMS, 'student'), folder('stubs'), { recursive: true });
  for (const name of Object.keys(MISTAKES)) {
    fs.mkdirSync(folder(name));
    fs.writeFileSync(path.join(folder(name), 'index.ts'), mistaken(fs.readFileSync(path.join(NORMS, 'reference', 'index.ts'), 'utf8'), name));
  }
});

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('its declaration, as an instructor writes it', () => {
  it('lib is a link git stores as a link, to the project\'s lib: vite loads one module through both paths', async () => {
    const listed = await new Promise<string>((resolve) => execFile('git', ['-C', PROJECT_ROOT, 'ls-files', '-s', 'selftest/assignments/norms/lib'], (_e, out) => resolve(out)));
    expect(listed).toMatch(/^120000 /);
    expect(fs.realpathSync(path.join(NORMS, 'lib'))).toBe(path.join(PROJECT_ROOT, 'lib'));
    const linked = (await import(path.join(NORMS, 'lib', 'tensor.ts'))) as { Tensor: unknown };
    expect(linked.Tensor).toBe(Tensor);
  });

  it('Node (scripts/runTs.js, the scripts\' loader) loads one module through both paths', async () => {
    const same = `console.log(require(${JSON.stringify(path.join(NORMS, 'lib', 'tensor'))}).Tensor === require('./lib/tensor').Tensor)`;
    const { stdout, stderr } = await run(['-r', RUN_TS, '-e', same]);
    expect(stdout.trim(), stderr).toBe('true');
  });

  it('its fixtures are what its generator makes, byte for byte (npm run fixtures -- --check)', async () => {
    const { code, stdout, stderr } = await script('fixtures', ['--check']);
    expect(stdout + stderr).toBe('fixtures --check: 8 fixtures, 29 files identical to a fresh generation\n');
    expect(code).toBe(0);
  });

  it('its fixtures hold what a float64 computation of this test\'s own gives on their inputs, hidden ones too', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(NORMS, 'fixtures', 'manifest.json'), 'utf8')) as { fixtures: Record<string, { params: Record<string, number> }> };
    const { GRADED_CASES } = (await import(path.join(NORMS, 'tests', 'cases.ts'))) as { GRADED_CASES: { fn: string; fixture: string }[] };
    expect(Object.keys(manifest.fixtures).sort()).toEqual(GRADED_CASES.map((c) => c.fixture).sort());
    let ties = 0;
    for (const { fn, fixture } of GRADED_CASES) {
      const npy = (name: string) => readNpy(path.join(NORMS, 'fixtures', fixture, `${name}.npy`));
      const { params } = manifest.fixtures[fixture];
      const x = npy('x');
      const n = x.shape[x.shape.length - 1];
      const rows = x.data.length / n;
      if (fn === 'layer_norm') {
        const [gamma, beta, expected] = [npy('gamma'), npy('beta'), npy('expected')];
        expect(expected.shape, fixture).toEqual(x.shape);
        for (let r = 0; r < rows; r++) {
          const row = Array.from(x.data.subarray(r * n, (r + 1) * n));
          const mean = row.reduce((a, b) => a + b, 0) / n;
          const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / n;
          for (let i = 0; i < n; i++) {
            const want = ((row[i] - mean) / Math.sqrt(variance + params.eps)) * gamma.data[i] + beta.data[i];
            // Stored as float32: within one unit in the last place of a float32 of the float64 value.
            expect(Math.abs(expected.data[r * n + i] - want), `${fixture} [${r}, ${i}]`).toBeLessThanOrEqual(Math.abs(want) * 2 ** -23);
          }
        }
      } else {
        const [values, indices] = [npy('expected_values'), npy('expected_indices')];
        const k = params.k;
        expect([values.shape, indices.shape], fixture).toEqual([[...x.shape.slice(0, -1), k], [...x.shape.slice(0, -1), k]]);
        for (let r = 0; r < rows; r++) {
          const row = Array.from(x.data.subarray(r * n, (r + 1) * n), (value, index) => ({ value, index }));
          const order = row.sort((a, b) => b.value - a.value || a.index - b.index).slice(0, k);
          expect(Array.from(values.data.subarray(r * k, (r + 1) * k)), `${fixture} row ${r}`).toEqual(order.map((e) => e.value));
          expect(Array.from(indices.data.subarray(r * k, (r + 1) * k)), `${fixture} row ${r}`).toEqual(order.map((e) => e.index));
          ties += order.filter((e, j) => j > 0 && e.value === order[j - 1].value).length;
        }
      }
    }
    // The tie rule is graded only if some top k holds equal entries.
    expect(ties).toBeGreaterThan(0);
  });

  it('its README\'s tables are made from its cases, and its handout is built from its folder beside the harness', async () => {
    const { ASSIGNMENT } = (await import(path.join(NORMS, 'tests', 'assignment.ts'))) as { ASSIGNMENT: Assignment };
    expect(ASSIGNMENT.diagnosis).toBeUndefined();
    const readme = fs.readFileSync(path.join(NORMS, 'README.md'), 'utf8');
    expect(withCaseTables(readme, ASSIGNMENT)).toBe(readme);
    const { files, visibleFixtures, hiddenFixtures } = buildHandout(ASSIGNMENT);
    expect({ visibleFixtures, hiddenFixtures }).toEqual({ visibleFixtures: 6, hiddenFixtures: 2 });
    for (const own of ['adapters/functions.ts', 'tests/cases.ts', 'tests/assignment.ts', 'tests/graded.test.ts']) {
      expect(files.get(own)?.equals(fs.readFileSync(path.join(NORMS, own))), own).toBe(true);
    }
    expect(files.get('student/index.ts')!.toString()).toMatch(/throw new NotImplementedError\('topK'\)/);
    expect([...files.keys()].filter((f) => f.startsWith('fixtures/hidden/') || f.startsWith('reference/'))).toEqual([]);
    expect(files.get('README.md')!.toString()).toMatch(/^# Norms: layer normalisation and top-k\n\n```sh\nnpm ci/);
  });
});

interface JsonReport {
  testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
}

/** npm test as GRADER_ASSIGNMENT runs it, on the submission `name`, as vitest's JSON report. */
async function npmTest(name: string): Promise<Map<string, { status: string; message: string }>> {
  const report = path.join(work, `${name}-vitest.json`);
  const { stdout, stderr } = await run(['node_modules/vitest/vitest.mjs', 'run', '--reporter=json', `--outputFile=${report}`], { ATTENTION_SUBMISSION: folder(name) });
  if (!fs.existsSync(report)) throw new Error(`vitest wrote no report:\n${stdout}${stderr}`);
  const parsed = JSON.parse(fs.readFileSync(report, 'utf8')) as JsonReport;
  return new Map(parsed.testResults.flatMap((f) => f.assertionResults).map((a) => [a.title, { status: a.status, message: a.failureMessages.join('\n') }]));
}

/** The grader's line for each test of a results.json. */
/**
 * npm test's failure message as the grader words it: the same lines after the heading, a diagnosis
 * leading the reason ("Failed: <diagnosis> — <check's line>") where npm test ends with it.
 */
function asGraderSays(message: string): string {
  const lines = message.split('\n').slice(1);
  const last = lines[lines.length - 1];
  if (!last?.startsWith('Diagnosis: ')) return `Failed: ${lines.join('\n')}`;
  return `Failed: ${last.slice('Diagnosis: '.length)} — ${lines.slice(0, -1).join('\n')}`;
}
const outputs = (results: Results) => new Map(results.tests.map((t) => [t.name, t.output]));
interface Results {
  score: number;
  max_score: number;
  tests: { name: string; score: number; status: string; output: string; visibility: string }[];
}
/** What each copy with mistakes fails, hidden tests too, and what it scores out of 7 with them. */
const FAILS: Record<string, { fails: string[]; score: number }> = {
  buggy: { fails: BUGGY_FAILS, score: 2 },
  reversed: { fails: [...VISIBLE, ...HIDDEN], score: 0 },
};
const visibleOf = (names: readonly string[]) => names.filter((name) => VISIBLE.includes(name));
/** npm test's failures, and the grader's results with --hidden, of each copy with mistakes. */
const testSaid = new Map<string, Map<string, { status: string; message: string }>>();
const gradeSaid = new Map<string, Results>();

describe('npm test (GRADER_ASSIGNMENT=its folder npm test)', () => {
  it('the reference passes every visible test', async () => {
    const results = await npmTest('ref');
    expect([...results.keys()]).toEqual(VISIBLE);
    for (const [name, { status }] of results) expect(status, name).toBe('passed');
  });

  it('the stubs fail every test as not implemented, naming the function and the file to edit', async () => {
    const results = await npmTest('stubs');
    expect([...results.keys()]).toEqual(VISIBLE);
    for (const [name, { status, message }] of results) {
      expect(status, name).toBe('failed');
      expect(message, name).toMatch(new RegExp(`^NotImplementedError: ${name.includes('top_k') ? 'topK' : 'layerNorm'} is not implemented yet: edit student/index\\.ts`));
    }
  });

  it('eps left out and indices one too far: the tests they reach fail, the indices part named, with only the generic notes', async () => {
    const results = await npmTest('buggy');
    testSaid.set('buggy', results);
    const failed = [...results].filter(([, r]) => r.status === 'failed').map(([name]) => name);
    expect(failed).toEqual(visibleOf(BUGGY_FAILS));
    expect(results.get('test_layer_norm_eps')!.message).toMatch(/^GradeFailure: test_layer_norm_eps \(1 pt\): [^\n]*\n36 of 36 values out of tolerance \(atol 1e-6, rtol 1e-4\)/);
    for (const name of ['test_top_k', 'test_top_k_ties', 'test_top_k_batch_dims_all']) {
      const lines = results.get(name)!.message.split('\n');
      expect(lines[1], name).toMatch(/^indices: (\d+) of \1 values differ \(compared exactly\); first at \[[\d, ]+\]: expected (\d+), got (\d+)$/);
      const [, expected, got] = /expected (\d+), got (\d+)$/.exec(lines[1])!.map(Number);
      expect(got - expected, name).toBe(1);
      expect(lines[2], name).toMatch(/^No known cause shows in what your function returns; 100% of the values .* differ from the expected ones \(compared exactly\), the largest difference is 1 at /);
    }
    for (const name of failed) expect(results.get(name)!.message, name).not.toMatch(ATTENTION_WORDS);
  });

  it('the unbiased variance and the k largest smallest first: every test fails, each part of top-k under its own name', async () => {
    const results = await npmTest('reversed');
    testSaid.set('reversed', results);
    expect([...results].filter(([, r]) => r.status === 'failed').map(([name]) => name)).toEqual(VISIBLE);
    for (const [name, { message }] of results) {
      const lines = message.split('\n');
      if (name.includes('layer_norm')) {
        expect(lines[1], name).toMatch(/^(\d+) of \1 values out of tolerance \(atol 1e-6, rtol 1e-4\); first at /);
        expect(lines[2], name).toMatch(/^No known cause shows in what your function returns; 100% of the values .* are out of tolerance, the largest error is /);
      } else {
        expect(lines[1], name).toMatch(/^values: \d+ of \d+ values out of tolerance \(atol 0, rtol 0\); first at /);
        expect(lines[2], name).toMatch(/^indices: \d+ of \d+ values differ \(compared exactly\); first at /);
        // The k largest smallest first is the expected columns reversed: where the output shows that, the fact is said (lib/diagnosis/outputFacts.ts).
        expect(lines[3], name).toMatch(/^(No known cause shows in what your function returns; \d+% of the values .* are out of tolerance|Diagnosis: Your output holds the expected columns \(slices along every dim but the last\) in another order: .*\[\.\.\., 0\] holds what \[\.\.\., \d\] should)/);
      }
      expect(message, name).not.toMatch(ATTENTION_WORDS);
    }
  });
});

// --reference reads the reference beside the student/ this test's run finds (scripts/grade.ts: both
// under the assignment's root); its full marks through the CLI: selftest/attacks/settings.test.ts,
// and this assignment's reference gets them in the batch and from the Gradescope bundle below.
describe('npm run grade (GRADER_ASSIGNMENT=its folder)', () => {
  it('no flags: its own student/, the stubs, 0 with every test not implemented', async () => {
    const { code, stdout } = await script('grade', []);
    expect(code).toBe(0);
    for (const name of VISIBLE) expect(stdout, name).toMatch(new RegExp(`^${name} +0/1 +not_implemented(?: +|\\n +)${name.includes('top_k') ? 'topK' : 'layerNorm'} is not implemented yet: edit student/index\\.ts$`, 'm'));
    expect(stdout).toMatch(/Total: 0\/6/);
  });
});

describe('a batch, its shards and their merge', () => {
  const out = (name: string) => path.join(work, name);
  const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
  /** A page's words as a reader sees them: its body's text (the shared style sheet and scripts name classes of every assignment). */
  const shown = (html: string) => html.slice(html.indexOf('<body>')).replace(/<(script|style)\b[\s\S]*?<\/\1>/g, ' ').replace(/<[^>]+>/g, ' ');

  // Graded as two shards and merged: each shard is a batch of its own, and the merge rebuilds the
  // gradebook, report and record as one machine's run builds them (that the two are byte for byte
  // the same: selftest/grader/shards.test.ts).
  it('with --hidden, as two shards merged (npm run merge): grades.csv, grades-long.csv, report.html and each submission\'s result and page for the reference, the stubs and the copies with mistakes', async () => {
    for (const shard of ['1/2', '2/2']) {
      const { code, stderr } = await script('grade', ['--submissions', submissions, '--out', out(`shard${shard[0]}`), '--shard', shard, '--jobs', '2', '--hidden']);
      expect(code, stderr).toBe(0);
      // Each shard graded part of the folder, and its report is this assignment's.
      expect(read(out(`shard${shard[0]}`), 'report.html')).toMatch(/<h1>Norms assignment: \d+ submissions?<\/h1>/);
    }
    const { code, stderr } = await script('merge', [out('shard1'), out('shard2'), '--out', out('whole')]);
    expect(code, stderr).toBe(0);
    const rows = csvRecords(read(out('whole'), 'grades.csv'));
    expect(rows.map((r) => [r.name, r.total, r.max, r.status])).toEqual([
      ['buggy', '2', '7', 'graded'], ['ref', '7', '7', 'graded'], ['reversed', '0', '7', 'graded'], ['stubs', '0', '7', 'graded (8 tests not implemented)'],
    ]);
    expect(Object.keys(rows[0])).toEqual(['name', ...VISIBLE, ...HIDDEN, 'total', 'max', 'status']);
    const long = csvRecords(read(out('whole'), 'grades-long.csv'));
    expect(long).toHaveLength(4 * (VISIBLE.length + HIDDEN.length));
    for (const copy of Object.keys(FAILS)) {
      expect(long.filter((r) => r.submission === copy && r.status === 'failed').map((r) => r.test), copy).toEqual(FAILS[copy].fails);
    }
    expect(long.filter((r) => r.submission === 'stubs').map((r) => r.status)).toEqual([...VISIBLE, ...HIDDEN].map(() => 'not_implemented'));
    const report = read(out('whole'), 'report.html');
    expect(report).toContain('<h1>Norms assignment: 4 submissions</h1>');
    for (const name of [...VISIBLE, 'layer norm', 'top-k']) expect(report, name).toContain(name);
    // Its data (a script) says what each failure said: no word of the attention assignment's there either.
    expect(report).not.toMatch(/attention|softmax|causal/i);
    expect(shown(report)).not.toMatch(ATTENTION_WORDS);
    // A submission's own result is the grader's, and its page is titled by the assignment.
    const { files: stems } = JSON.parse(read(out('whole'), 'batch.json')) as { files: Record<string, string> };
    for (const copy of Object.keys(FAILS)) gradeSaid.set(copy, JSON.parse(read(out('whole'), path.join('submissions', `${stems[copy]}.json`))) as Results);
    const reversed = gradeSaid.get('reversed')!;
    expect(reversed.tests.filter((t) => t.name.includes('top_k')).every((t) => /^Failed: (?:Your output holds [^\n]* — )?values: [^\n]*\n\nindices: /.test(t.output))).toBe(true);
    const page = read(out('whole'), path.join('submissions', `${stems.reversed}.html`));
    expect(page).toContain('<h1>Norms assignment: reversed</h1>');
    expect(shown(page)).not.toMatch(ATTENTION_WORDS);
  });

  it.each(Object.keys(FAILS))('the %s copy\'s result, graded with --hidden: the same tests fail, hidden ones too, in the words npm test says', (copy) => {
    const results = gradeSaid.get(copy)!;
    expect(results.tests.map((t) => t.name)).toEqual([...VISIBLE, ...HIDDEN]);
    expect(results.tests.filter((t) => t.status === 'failed').map((t) => t.name)).toEqual(FAILS[copy].fails);
    expect(results.tests.filter((t) => t.visibility === 'after_published').map((t) => t.name)).toEqual(HIDDEN);
    expect({ score: results.score, max: results.max_score }).toEqual({ score: FAILS[copy].score, max: 7 });
    // One truth, two paths: the grader's reason and note are npm test's lines after its heading.
    const said = outputs(results);
    for (const name of visibleOf(FAILS[copy].fails)) {
      expect(said.get(name)!.replace(/\n\n/, '\n'), name).toBe(asGraderSays(testSaid.get(copy)!.get(name)!.message));
    }
    for (const [name, output] of said) expect(output, name).not.toMatch(ATTENTION_WORDS);
  });
});

describe('the Gradescope bundle (GRADER_ASSIGNMENT=its folder npm run gradescope)', () => {
  it('holds its own files and fixtures, hidden ones too; its run_autograder gives the reference full marks and a copy with mistakes the grader\'s points', async () => {
    const zip = path.join(work, 'norms.zip');
    const { code, stderr } = await script('gradescope', ['--out', zip]);
    expect(code, stderr).toBe(0);
    const entries = readZip(fs.readFileSync(zip));
    const names = entries.map((e) => e.name);
    const fixtures = names.filter((n) => n.startsWith('fixtures/'));
    expect(fixtures.length).toBe(29);
    expect(fixtures).toContain('fixtures/hidden/top_k/expected_indices.npy');
    expect(names.filter((n) => /^(student|reference|selftest)\//.test(n))).toEqual([]);
    for (const own of ['adapters/functions.ts', 'tests/cases.ts', 'tests/assignment.ts', 'fixtures/manifest.json']) {
      expect(entries.find((e) => e.name === own)?.data.equals(fs.readFileSync(path.join(NORMS, own))), own).toBe(true);
    }
    const source = path.join(work, 'source');
    unpack(source, entries);
    linkNodeModules(source);
    const { results } = await runAutograder(autograderRoot(path.join(work, 'runs'), 'ref', { 'index.ts': fs.readFileSync(path.join(NORMS, 'reference', 'index.ts'), 'utf8') }, source));
    expect(results.tests.map((t) => [t.name, t.status])).toEqual([...VISIBLE, ...HIDDEN].map((name) => [name, 'passed']));
    expect(results.score).toBe(7);
    // Graded from the bundle alone: the same points and words as npm run grade -- --hidden.
    const buggy = (await runAutograder(autograderRoot(path.join(work, 'runs'), 'buggy', { 'index.ts': fs.readFileSync(path.join(folder('buggy'), 'index.ts'), 'utf8') }, source))).results;
    const graded = gradeSaid.get('buggy')!;
    expect(buggy.score).toBe(graded.score);
    expect(buggy.tests.map((t) => [t.name, t.status, t.score, t.output])).toEqual(graded.tests.map((t) => [t.name, t.status, t.score, t.output]));
  });
});
