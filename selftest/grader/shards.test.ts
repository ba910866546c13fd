/**
 * A batch of correct, buggy and hostile submissions graded whole, and as three shards merged in
 * every order: the same gradebook, results, pages and report (execution times aside). Then what a
 * merge refuses, through the library and the command line.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MergeError, mergeShards } from '../../lib/batch/merge';
import { RECORD_FILE, type BatchRecord } from '../../lib/batch/record';
import { notRunAfterLoad } from '../../lib/model/notRun';
import { CACHE_DIR } from '../../lib/workCache';
import { gradeBatch, type BatchOptions } from '../../lib/batch/gradeBatch';
import { caseTable, fixtureHashes, gradedWith } from '../../lib/batch/provenance';
import { fixturesDir } from '../../lib/grading/assignment';
import { readManifest } from '../../lib/model/manifest';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { pageFile, resultsFile } from '../../lib/report/batchReport';
import { GRADED_CASES } from '../../tests/cases';
import { gradeOptions } from './harness';
import { materialize, tempDir } from './materialize';
import { csvRecords } from '../../lib/report/exports';
import { CauseBook } from '../../lib/report/causes';
import { MISTAKES } from '../../tests/diagnosis/catalogue';
import { FUNCTIONS } from '../../adapters/functions';
import { ASSIGNMENT } from '../../tests/assignment';

const BOOK = { functions: FUNCTIONS, causes: new CauseBook(MISTAKES), title: ASSIGNMENT.page.title };

const CATALOGUE = path.join(__dirname, '..', 'catalogue');
const ATTACKS = path.join(__dirname, '..', 'attacks');
const SUBMISSIONS: Record<string, string> = {
  correct_reference: path.join(PROJECT_ROOT, 'reference', 'index.ts'),
  correct_plain_loops: path.join(CATALOGUE, 'correct', 'plain_loops.ts'),
  buggy_scale_missing: path.join(CATALOGUE, 'bugs', 'scale_missing.ts'),
  buggy_mask_inverted: path.join(CATALOGUE, 'bugs', 'mask_inverted.ts'),
  buggy_softmax_unstable: path.join(CATALOGUE, 'bugs', 'softmax_unstable.ts'),
  hostile_lying_result: path.join(ATTACKS, 'lying_result.ts'),
  hostile_patch_prototypes: path.join(ATTACKS, 'patch_prototypes.ts'),
  hostile_read_expected: path.join(ATTACKS, 'read_expected_from_disk.ts'),
  hostile_exit_at_import: path.join(__dirname, 'misbehaving', 'exit_at_import.ts'),
  hostile_refused_import: path.join(__dirname, 'misbehaving', 'refused_import.ts'),
  // The reference with 20,000 nested parentheses after it (beforeAll): it once ended the grading process with SIGSEGV.
  hostile_nested_too_deep: path.join(PROJECT_ROOT, 'reference', 'index.ts'),
  // Named like the files a batch writes for itself, like each other but for case, and like a
  // suffix the layout once added: every one keeps its own files. What they hold is not what they
  // are here for: each is refused at load (its result and page name it), which costs no child.
  batch: path.join(__dirname, 'misbehaving', 'refused_import.ts'),
  'batch.submission': path.join(__dirname, 'misbehaving', 'refused_import.ts'),
  Batch: path.join(__dirname, 'misbehaving', 'refused_import.ts'),
  report: path.join(__dirname, 'misbehaving', 'refused_import.ts'),
  grades: path.join(__dirname, 'misbehaving', 'refused_import.ts'),
};
const CORRECT = new Set(['correct_reference', 'correct_plain_loops']);

const root = tempDir('shards');
const submissions = path.join(root, 'submissions');
const out = (name: string) => path.join(root, name);
const shardDirs = [1, 2, 3].map((i) => out(`shard-${i}`));

let options: BatchOptions;

beforeAll(async () => {
  for (const [name, file] of Object.entries(SUBMISSIONS)) {
    const dir = materialize(file, submissions, name);
    fs.copyFileSync(path.join(ATTACKS, 'kit.ts'), path.join(dir, 'kit.ts'));
  }
  fs.appendFileSync(path.join(submissions, 'hostile_nested_too_deep', 'index.ts'), `export const zz = ${'('.repeat(20_000)}1${')'.repeat(20_000)};\n`);
  fs.mkdirSync(path.join(submissions, 'no_index'));
  // A generous per-test limit: nothing here hangs, and a loaded machine must not turn a verdict into a timeout.
  options = { ...gradeOptions({ timeoutMs: 30_000 }), jobs: 2, force: false, html: true };
  await gradeBatch(submissions, out('whole'), options);
  for (const [i, dir] of shardDirs.entries()) await gradeBatch(submissions, dir, { ...options, shard: { index: i + 1, count: 3 } });
});

const record = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, RECORD_FILE), 'utf8')) as BatchRecord;
const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
/** A result without what changes from run to run: the execution time. */
const untimed = (dir: string, name: string) => ({ ...JSON.parse(read(dir, resultsFile(name))), execution_time: 0 }) as unknown;

const ORDERS = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];

describe('a batch graded as 3 shards and merged', () => {
  it('splits the batch: every submission in exactly one shard, none empty', () => {
    const names = [...Object.keys(SUBMISSIONS), 'no_index'].sort();
    const split = shardDirs.map((dir) => record(dir).submissions);
    for (const part of split) expect(part.length).toBeGreaterThan(0);
    expect(split.flat().sort()).toEqual(names);
    expect(shardDirs.map((dir) => record(dir).shard)).toEqual([1, 2, 3].map((index) => ({ index, count: 3 })));
    expect(record(out('whole')).shard).toEqual({ index: 1, count: 1 });
  });

  it.each(ORDERS.map((order) => ({ order: order.map((i) => i + 1).join(','), dirs: order.map((i) => shardDirs[i]) })))(
    'equals the whole run, shards in order $order',
    ({ order, dirs }) => {
      const merged = out(`merged-${order.replace(/,/g, '')}`);
      mergeShards(dirs, merged, GRADED_CASES, BOOK);
      const whole = out('whole');
      for (const file of ['grades.csv', 'grades-long.csv', 'report.html', RECORD_FILE]) expect(read(merged, file), file).toBe(read(whole, file));
      for (const name of record(whole).submissions) {
        expect(untimed(merged, name), name).toEqual(untimed(whole, name));
        expect(read(merged, pageFile(name)), name).toBe(read(whole, pageFile(name)));
      }
      // The whole run's work cache (lib/workCache.ts) is for its own reruns, not a result: a merge has none.
      expect(fs.readdirSync(merged).sort()).toEqual(fs.readdirSync(whole).filter((f) => f !== CACHE_DIR).sort());
    },
  );

  it('the gradebook holds real grades: full marks only for the correct ones', () => {
    const totals = Object.fromEntries(csvRecords(read(out('whole'), 'grades.csv')).map((r) => [r.name, Number(r.total)]));
    for (const name of Object.keys(totals)) expect(totals[name] === 12, name).toBe(CORRECT.has(name));
    // The batch's own files, and one result and page per submission, none shared.
    expect(fs.readdirSync(out('whole')).sort()).toEqual([CACHE_DIR, 'batch.json', 'grades-long.csv', 'grades.csv', 'report.html', 'submissions']);
    const names = [...Object.keys(SUBMISSIONS), 'no_index'];
    expect(fs.readdirSync(path.join(out('whole'), 'submissions')).length).toBe(2 * names.length);
    for (const name of names) expect(JSON.parse(read(out('whole'), resultsFile(name))).extra_data.graded_with.submission, name).toBeDefined();
    const deep = JSON.parse(read(out('whole'), resultsFile('hostile_nested_too_deep'))) as { tests: { name: string; output: string; visibility: string }[] };
    const first = deep.tests.find((t) => t.visibility === 'visible') ?? deep.tests[0];
    const others = deep.tests.filter((t) => t !== first);
    expect(first.output).toMatch(/^Error: the submission failed to load: nesting too deep at hostile_nested_too_deep\/index\.ts:\d+:\d+: /);
    for (const t of others) expect(t.output).toBe(`Error: ${notRunAfterLoad(first.name)}`);
  });
});

describe('a merge refuses, naming the culprit', () => {
  const refusal = (dirs: string[]) => {
    try {
      mergeShards(dirs, out('refused'), GRADED_CASES, BOOK);
    } catch (err) {
      expect(err).toBeInstanceOf(MergeError);
      return (err as Error).message;
    }
    throw new Error('the merge went through');
  };
  /** A shard output copied, then changed by `edit` (a tampered or stray folder). */
  const variant = (from: number, name: string, edit: (dir: string, rec: BatchRecord) => void) => {
    const dir = out(name);
    fs.cpSync(shardDirs[from], dir, { recursive: true });
    const rec = record(dir);
    edit(dir, rec);
    fs.writeFileSync(path.join(dir, RECORD_FILE), JSON.stringify(rec));
    return dir;
  };

  it('a missing shard', () => {
    expect(refusal([shardDirs[0], shardDirs[2]])).toBe('shard 2/3 is missing: grade it with --shard and pass its --out folder too');
  });

  it('a shard given twice, as the same folder or a copy', () => {
    expect(refusal([...shardDirs, shardDirs[1]])).toBe(`shard 2/3 is given twice: ${shardDirs[1]} and ${shardDirs[1]}; pass each shard once`);
    const copy = variant(1, 'copy-of-2', () => {});
    expect(refusal([shardDirs[0], shardDirs[1], copy, shardDirs[2]])).toMatch(/^shard 2\/3 is given twice: .*shard-2 and .*copy-of-2;/);
  });

  it('a shard graded with --hidden when the others were not', () => {
    // Shard 2's folder with the record a --hidden run of it writes (gradeBatch.ts: what it grades
    // with, every case's table and fixtures). That a run records --hidden so is resume.test.ts's (a
    // --hidden run regrades every result) and gradeOptions.test.ts's (each option's other value).
    const cases = GRADED_CASES;
    const fixtures = fixtureHashes(cases, readManifest(fixturesDir(ASSIGNMENT)));
    const hidden = variant(1, 'hidden-2', (_, rec) => {
      rec.graded_with = gradedWith({ ...options, cases }, cases, fixtures, ASSIGNMENT.parts?.on);
      rec.case_table = caseTable(cases);
      rec.fixtures = fixtures;
    });
    expect(refusal([shardDirs[0], hidden, shardDirs[2]]))
      .toBe(`${hidden} was graded with --hidden on instead of off, unlike ${shardDirs[0]}: grade every shard with the same checkout and flags`);
  });

  it('a submission graded twice', () => {
    const name = record(shardDirs[0]).submissions[0];
    const stray = variant(1, 'stray-2', (dir, rec) => {
      fs.copyFileSync(path.join(shardDirs[0], resultsFile(name)), path.join(dir, resultsFile(name)));
      rec.submissions.push(name);
      rec.files[name] = record(shardDirs[0]).files[name];
    });
    expect(refusal([shardDirs[0], stray, shardDirs[2]])).toBe(
      `submission ${name} was graded twice: in ${shardDirs[0]} and in ${stray}; regrade one of those shards`);
  });

  it('a folder whose run did not finish, and a result graded otherwise than its shard', () => {
    const unfinished = variant(2, 'unfinished-3', () => {});
    fs.rmSync(path.join(unfinished, RECORD_FILE));
    expect(refusal([shardDirs[0], shardDirs[1], unfinished])).toMatch(/unfinished-3 has no batch\.json, so it is not the output of a finished/);
    const name = record(shardDirs[2]).submissions[0];
    const tampered = variant(2, 'tampered-3', (dir) => {
      const file = path.join(dir, resultsFile(name));
      const results = JSON.parse(fs.readFileSync(file, 'utf8'));
      results.extra_data.graded_with.options.timeout_ms = 60_000;
      fs.writeFileSync(file, JSON.stringify(results));
    });
    expect(refusal([shardDirs[0], shardDirs[1], tampered]))
      .toBe(`${path.join(tampered, resultsFile(name))} was graded with --timeout 60 s instead of 30 s, unlike the rest of its shard: regrade shard 3/3`);
    const short = variant(2, 'short-3', (_, rec) => rec.submissions.pop());
    expect(refusal([shardDirs[0], shardDirs[1], short])).toMatch(/^the shards hold \d+ submissions but their folder had 17:/);
  });

  it('results that no grader wrote: a total beside its tests, a max_score of 1e12, a name with /, a huge file; nothing written', () => {
    const name = record(shardDirs[2]).submissions.find((n) => !CORRECT.has(n))!;
    const editResult = (label: string, edit: (results: Record<string, any>) => void) => variant(2, label, (dir) => { // eslint-disable-line @typescript-eslint/no-explicit-any
      const file = path.join(dir, resultsFile(name));
      const results = JSON.parse(fs.readFileSync(file, 'utf8'));
      edit(results);
      fs.writeFileSync(file, JSON.stringify(results));
    });
    const target = out('refused-kept');
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(path.join(target, 'grades.csv'), 'the gradebook before\n');
    const refusedInto = (dirs: string[]) => {
      try {
        mergeShards(dirs, target, GRADED_CASES, BOOK);
      } catch (err) {
        expect(err).toBeInstanceOf(MergeError);
        return (err as Error).message;
      }
      throw new Error('the merge went through');
    };
    const full = editResult('full-marks-3', (r) => { r.score = 12; });
    expect(refusedInto([shardDirs[0], shardDirs[1], full])).toMatch(/is not a result this grader wrote: its score is 12, but its tests add up to [\d.]+; regrade shard 3\/3$/);
    const huge = editResult('max-3', (r) => { r.max_score = 1e12; });
    expect(refusedInto([shardDirs[0], shardDirs[1], huge])).toMatch(/its max_score is 1000000000000, not 12;/);
    const test = editResult('test-3', (r) => { r.tests[0].score = r.tests[0].max_score; r.tests[0].status = 'failed'; });
    expect(refusedInto([shardDirs[0], shardDirs[1], test])).toMatch(/test_softmax_last_dim has 0\.25 points for status failed/);
    const slash = variant(2, 'slash-3', (_, rec) => { rec.submissions[0] = '../../etc/passwd'; });
    expect(refusedInto([shardDirs[0], shardDirs[1], slash])).toMatch(/lists a submission name no folder can have \(\.\.\/\.\.\/etc\/passwd\)/);
    const big = variant(2, 'big-3', (dir) => fs.writeFileSync(path.join(dir, resultsFile(name)), ' '.repeat(5 * 1024 ** 2)));
    expect(refusedInto([shardDirs[0], shardDirs[1], big])).toMatch(/is 5242880 bytes, over the 4 MiB a result can be/);
    expect(fs.readdirSync(target)).toEqual(['grades.csv']);
    expect(fs.readFileSync(path.join(target, 'grades.csv'), 'utf8')).toBe('the gradebook before\n');
  });

  it('from the command line: one line and exit 1 when refused; exit 0, the summary and a job summary when merged', () => {
    const merge = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      spawnSync(process.execPath, [RUN_TS, 'scripts/merge.ts', ...args], { cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, ...env } });
    const refused = merge([shardDirs[0], shardDirs[1], '--out', out('cli-refused')]);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual(['merge: refused: shard 3/3 is missing: grade it with --shard and pass its --out folder too']);
    expect(fs.existsSync(out('cli-refused'))).toBe(false);

    expect(merge([shardDirs[0]]).status).toBe(2);
    const summary = path.join(root, 'summary.md');
    const merged = merge([...shardDirs].reverse().concat('--out', out('cli-merged')), { GITHUB_STEP_SUMMARY: summary });
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/^merged 3 shard output\(s\): 17 submissions\nSubmissions: 17\n/);
    expect(read(out('cli-merged'), 'grades.csv')).toBe(read(out('whole'), 'grades.csv'));
    const markdown = fs.readFileSync(summary, 'utf8');
    expect(markdown).toMatch(/^### Gradebook: 17 submissions\n/);
    const totals = csvRecords(read(out('whole'), 'grades.csv')).map((r) => Number(r.total));
    expect(markdown).toContain(`| 11–12 | ${totals.filter((t) => t >= 11).length} |`);
    expect(markdown).toContain(`| 0–1 | ${totals.filter((t) => t < 1).length} |`);
    const counted = [...markdown.matchAll(/^\| [\d.]+–[\d.]+ \| (\d+) \|/gm)].reduce((s, m) => s + Number(m[1]), 0);
    expect(counted).toBe(17);
  });
});
