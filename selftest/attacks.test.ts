/**
 * The attack catalogue (selftest/attacks/): hostile and broken submissions, graded all together in
 * one batch beside a correct submission (and on their own where the batch cannot judge them, see
 * below). For every attack the grader
 * completes, no test earns points that an honest computation did not earn, every lost point has a
 * reason, and the attack's own expectation (EXPECTED) holds. What attacks may do besides their
 * grade is checked too: the fixtures stay byte for byte, no forged file appears, nothing reaches
 * the self-test's TCP port, no environment variable reaches a student, printed output stays capped.
 *
 * An attack that changes files others read (the fixtures), or that must reach the memory cap
 * before the timeout, is graded again alone. The batches run in a process of their own
 * (attacks/runner.ts), in a PID namespace of their own: an attack that kills its grader's process
 * kills that one, not vitest.
 * Whatever an attack manages to change is put back after it is reported, so that a failure of
 * containment does not leave the project broken.
 *
 * The expectations are those of the containment setting this machine gives the grader
 * (attacks/expectations.ts); attacks/settings.test.ts grades the same attacks in the other settings,
 * and attacks/bare.test.ts shows them real: uncontained, they get through.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR } from '../lib/workCache';
import { loadCaseFixtures, prepareChild, type GradeOptions } from '../lib/grading/grade';
import { readManifest, sha256 } from '../lib/model/manifest';
import type { BatchOutcome } from '../lib/batch/gradeBatch';
import type { SubmissionResult } from '../lib/model/result';
import { pageFile, resultsFile } from '../lib/report/batchReport';
import { parseCsv } from '../lib/text/csvParse';
import { GRID_SCRIPT } from '../lib/report/courseGrid';
import { apportionUnits, fromUnits, toUnits } from '../lib/report/points';
import { toGradescope } from '../lib/report/gradescope';
import { buildChildRuntime } from '../lib/sandbox/build';
import { FIXTURES_DIR, PROJECT_ROOT } from '../lib/paths';
import { containmentReport } from '../lib/sandbox/containment';
import { GRADED_CASES, visibleCases } from '../tests/cases';
import {
  BUDGET_MS, expectationsFor, KILLS_THE_GRADER, layoutProblems, MEMORY_BYTES, OUTPUT_CAP, PHISHING, problems, SECRET, TIMEOUT_MS, type Expectation,
} from './attacks/expectations';
import { LAYOUTS, makeOutside, type LayoutContext } from './attacks/layouts';
import { attackFolder, CARRIED_BUGS, layoutFolder, ownMultiHead, runIsolated } from './attacks/folders';
import { CARRIED_REASON } from '../tests/carryForward/carryForward';
import { BUGS } from './catalogue';
import { folderModes, leftOnTheMachine, modesChanged, SocketProbes } from './attacks/machine';
import { inOwnPidNamespace } from './attacks/ownPidNamespace';
import { grade, gradeOptions } from './grader/harness';
import { materialize, tempDir } from './grader/materialize';
import { ASSIGNMENT } from '../tests/assignment';

const JOBS = 2;
/**
 * A batch of every attack grades one after another what each grades alone; on a loaded 2-core
 * machine that took longer than a hook's default two minutes.
 */
const BATCH_LIMIT_MS = 900_000;

/** The containment this machine gives the grader's children, found as the grader finds it. */
const CHILD = prepareChild(MEMORY_BYTES);
const SETTING = containmentReport(CHILD).setting;
const EXPECTED = expectationsFor(SETTING);
// Attacks that would kill the grader itself in this setting are graded nowhere (docs/security.md says so).
for (const name of KILLS_THE_GRADER()[SETTING] ?? []) delete EXPECTED[name];
const IS_ROOT = process.getuid?.() === 0;
const LAYOUT_NAMES = Object.keys(LAYOUTS).filter((name) => IS_ROOT || !LAYOUTS[name].root);

// ── What an attack may change besides its grade: snapshots taken before, checked and put back after ──

/** path → bytes (null: absent). */
type Snapshot = Map<string, Buffer | null>;

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

function take(files: readonly string[]): Snapshot {
  return new Map(files.map((f) => [f, fs.existsSync(f) ? fs.readFileSync(f) : null]));
}

/** Files that differ from the snapshot (or are new in `dir`), each put back as it was. */
function changesPutBack(snapshot: Snapshot, dir?: string): string[] {
  const changed: string[] = [];
  for (const [file, before] of snapshot) {
    const now = fs.existsSync(file) ? fs.readFileSync(file) : null;
    if (now === null && before === null) continue;
    if (now !== null && before !== null && now.equals(before)) continue;
    changed.push(`${before === null ? 'created' : now === null ? 'deleted' : 'changed'} ${file}`);
    if (before === null) fs.rmSync(file, { force: true });
    else fs.writeFileSync(file, before);
  }
  for (const file of dir ? filesUnder(dir) : []) {
    if (snapshot.has(file)) continue;
    changed.push(`created ${file}`);
    fs.rmSync(file, { force: true });
  }
  return changed;
}

let fixtures: Snapshot;
const fixtureChanges = () => changesPutBack(fixtures, FIXTURES_DIR);

/** Where forge_results writes results.json and grades.csv (besides guessed batch output folders). */
function forgeTargets(childEntry: string): string[] {
  const above = (start: string) => {
    const dirs = [];
    for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
      dirs.push(dir);
      if (path.dirname(dir) === dir) return dirs;
    }
  };
  const dirs = new Set([...above(process.cwd()), ...above(path.dirname(childEntry)), os.tmpdir(), '/tmp']);
  return [...dirs].flatMap((dir) => [path.join(dir, 'results.json'), path.join(dir, 'grades.csv')]);
}
let forged: Snapshot;
const forgedFiles = () => changesPutBack(forged);

/** The self-test's sockets (a TCP port, a unix socket in /tmp, an abstract one) that the attacks are told about: nothing may reach them. */
const probes = new SocketProbes('attacks');
/** When the attacks began: what a child left on the machine since is found by leftOnTheMachine. */
const started = Date.now();
/** The folders anyone may write, and their modes: none may change. */
const modes = folderModes();
/** What a child left since the attacks began, but what the attack files that run beside this one left on purpose. */
const leftHere = () => leftOnTheMachine(started, [], [probes.tag]);

/** What each attack may have changed besides its grade; an attack this setting cannot contain is expected to get through. */
const SIDE_EFFECTS: Record<string, () => string[]> = {
  overwrite_fixtures: fixtureChanges,
  forge_results: forgedFiles,
  open_socket: () => (EXPECTED.open_socket?.mayPass ? (probes.reached(), []) : probes.reached()),
  unix_socket: () => [...(EXPECTED.unix_socket?.mayPass ? (probes.reached(), []) : probes.reached()), ...leftHere()],
  leave_files: () => leftHere(),
};

// ── Submissions on disk, and grading in a process of its own ──

const root = tempDir('attacks'); // forge_results guesses batch output folders under os.tmpdir()/attacks-*
let options: Partial<GradeOptions>;
let outside: LayoutContext;

const submission = (name: string, parent: string) => attackFolder(name, parent, probes.addresses);
const layout = (name: string, parent: string) => layoutFolder(name, parent, outside);
const isolated = <T>(args: string[]) => runIsolated<T>(args, inOwnPidNamespace([]));

beforeAll(async () => {
  fixtures = take(filesUnder(FIXTURES_DIR));
  const manifest = readManifest(FIXTURES_DIR);
  for (const [key, entry] of Object.entries(manifest.fixtures)) {
    for (const [name, file] of Object.entries(entry.files)) {
      if (sha256(fixtures.get(path.join(FIXTURES_DIR, key, name)) ?? Buffer.alloc(0)) !== file.sha256) {
        throw new Error(`fixtures/${key}/${name} already differs from the manifest: restore it with \`git checkout fixtures\``);
      }
    }
  }
  // Fixtures are loaded (and verified) before any attack runs, as a grading run does.
  gradeOptions();
  forged = take(forgeTargets(buildChildRuntime().entry));
  options = { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS, outputCap: OUTPUT_CAP, child: CHILD };
  outside = makeOutside(root);
  await probes.listen();
  Object.assign(process.env, SECRET);
});

afterAll(() => {
  probes.close();
  for (const name of Object.keys(SECRET)) delete process.env[name];
  fs.rmSync(root, { recursive: true, force: true });
});

/**
 * Every attack and layout is graded once, in the batch below, and held there to its expectation.
 * Graded again on its own are only the attacks the batch cannot judge: those that change files the
 * others read or must reach the memory cap with the cores to themselves (`alone`), and those held
 * on the hidden cases as well (`hidden`), which the batch does not grade.
 */
describe('attacks graded on their own', () => {
  const one = path.join(root, 'one');
  let allCases: GradeOptions | undefined;

  async function gradeAttack(name: string): Promise<SubmissionResult> {
    const expected = EXPECTED[name];
    const dir = submission(name, one);
    if (expected.hidden) {
      allCases ??= gradeOptions({ ...options, cases: GRADED_CASES, fixtures: loadCaseFixtures(ASSIGNMENT, GRADED_CASES) });
      return grade(dir, name, allCases);
    }
    return grade(dir, name, { ...options, ...(expected.timeoutMs && { timeoutMs: expected.timeoutMs }) });
  }

  const onHidden = Object.keys(EXPECTED).filter((name) => EXPECTED[name].hidden && !EXPECTED[name].alone);
  it.concurrent.for(onHidden)('%s (hidden cases too)', async (name, { expect }) => {
    const result = await gradeAttack(name);
    expect(problems(result, EXPECTED[name])).toEqual([]);
    expect(result.cases.filter((c) => c.hidden)).toHaveLength(GRADED_CASES.length - visibleCases().length);
    expect(SIDE_EFFECTS[name]?.() ?? []).toEqual([]);
  });

  for (const name of Object.keys(EXPECTED).filter((n) => EXPECTED[n].alone)) {
    it(`${name} (alone)`, async () => {
      const result = await gradeAttack(name);
      expect.soft(problems(result, EXPECTED[name])).toEqual([]);
      expect(SIDE_EFFECTS[name]?.() ?? []).toEqual([]);
    });
  }
});

describe('all attacks in one batch, beside a correct submission', () => {
  const submissions = path.join(root, 'batch', 'submissions');
  const out = path.join(root, 'batch', 'out');
  let batch: { value?: BatchOutcome; failure?: string };
  let sideEffects: string[];
  let written: Snapshot;

  beforeAll(async () => {
    for (const name of Object.keys(EXPECTED)) submission(name, submissions);
    materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, 'good');
    materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, 'good_too');
    for (const name of LAYOUT_NAMES) layout(name, submissions);
    written = take(filesUnder(submissions));
    batch = await isolated<BatchOutcome>(['batch', submissions, out, String(TIMEOUT_MS), String(MEMORY_BYTES), String(JOBS), String(BUDGET_MS)]);
    sideEffects = [...fixtureChanges(), ...forgedFiles(), ...SIDE_EFFECTS.unix_socket(), ...changesPutBack(written, submissions)];
  }, BATCH_LIMIT_MS);

  const result = (name: string) => batch.value?.graded.find((r) => r.name === name);

  it('the grader completes and grades every submission', () => {
    expect(batch.failure ?? '').toBe('');
    expect(batch.value!.graded.map((r) => r.name).sort()).toEqual([...Object.keys(EXPECTED), ...LAYOUT_NAMES, 'good', 'good_too'].sort());
  });

  it.each(LAYOUT_NAMES)('%s (its folder)', (name) => {
    expect(result(name), batch.failure).toBeDefined();
    expect(layoutProblems(result(name)!, LAYOUTS[name])).toEqual([]);
  });

  /** In a batch the cores are shared: an attack that must reach the memory cap first may meet its time limit instead. */
  const inBatch = (expected: Expectation): Expectation =>
    expected.alone ? { ...expected, statuses: [...expected.statuses, 'timeout'], reason: undefined } : expected;

  it.each(Object.keys(EXPECTED))('%s', (name) => {
    expect(result(name), batch.failure).toBeDefined();
    expect(problems(result(name)!, inBatch(EXPECTED[name]))).toEqual([]);
  });

  it("flood_output's flood is cut, and says how much was left out", () => {
    expect(result('flood_output'), batch.failure).toBeDefined();
    expect(result('flood_output')!.cases.find((c) => c.fn === 'softmax')!.output).toMatch(/more (characters|bytes) of output not shown/);
  });

  it('the correct submissions keep full marks, in their results and in their grades.csv rows', () => {
    for (const name of ['good', 'good_too']) {
      expect(result(name)?.score, batch.failure).toBe(12);
      expect(result(name)!.cases.every((c) => c.status === 'passed')).toBe(true);
    }
    const [header, ...rows] = parseCsv(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8'));
    const good = Object.fromEntries(header.map((column, i) => [column, rows.find((r) => r[0] === 'good')?.[i]]));
    // Each test's points as the gradebook shows them (lib/report/points.ts): they add up to 12.
    const shown = apportionUnits(visibleCases().map((c) => c.points));
    expect(good).toEqual({
      name: 'good', total: '12', max: '12', status: 'graded',
      ...Object.fromEntries(visibleCases().map((c, i) => [c.name, String(fromUnits(shown[i]!))])),
    });
  });

  it("no submission's declarations reach a classmate's type notes", () => {
    const reached = batch.value?.graded.filter((r) => r.name !== 'types_reach_classmates' && JSON.stringify(r).includes(PHISHING)).map((r) => r.name);
    expect(reached, batch.failure).toEqual([]);
  });

  it('grades.csv, the results files and the pages hold what the grader decided, and nothing else is in its output', () => {
    expect(batch.value, batch.failure).toBeDefined();
    const graded = batch.value!.graded;
    expect(fs.readdirSync(out).sort()).toEqual([CACHE_DIR, 'batch.json', 'grades-long.csv', 'grades.csv', 'report.html', 'submissions']);
    // The work cache holds the grader's transpiled code and type checks, one entry per key, nothing a child wrote.
    expect(fs.readdirSync(path.join(out, CACHE_DIR)).sort()).toEqual(['transpiled', 'typechecked']);
    for (const kind of ['transpiled', 'typechecked']) {
      for (const entry of fs.readdirSync(path.join(out, CACHE_DIR, kind))) expect(entry).toMatch(/^[0-9a-f]{64}\.json$/);
    }
    expect(fs.readdirSync(path.join(out, 'submissions')).map((f) => `submissions/${f}`).sort()).toEqual(
      graded.flatMap((r) => [resultsFile(r.name), pageFile(r.name)]).sort(),
    );
    // Whatever an attack printed or threw reaches the pages as text, never as markup. The report's
    // only scripts are ours: its grid's data (JSON, every '<' escaped) and the grid's code, allowed by its hash.
    const ours = (html: string) => html.replace(`<script>${GRID_SCRIPT}</script>`, '').replace(/<script type="application\/json" id="grid-data">[^<]*<\/script>/, '');
    for (const page of ['report.html', ...graded.map((r) => pageFile(r.name))]) {
      expect.soft(ours(fs.readFileSync(path.join(out, page), 'utf8')), page).not.toMatch(/<(script|img|iframe|object|link|a\s[^>]*href="?(https?|javascript):)/i);
    }
    const [header, ...rows] = parseCsv(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8'));
    const total = header.indexOf('total');
    expect(Object.fromEntries(rows.map((r) => [r[0], Number(r[total])]))).toEqual(Object.fromEntries(graded.map((r) => [r.name, fromUnits(toUnits(r.score))])));
    for (const r of graded) {
      const written = JSON.parse(fs.readFileSync(path.join(out, resultsFile(r.name)), 'utf8'));
      // Beside what the grader decided, only the record of what it graded with (lib/batch/provenance.ts).
      expect.soft(written.extra_data.graded_with?.options?.timeout_ms, r.name).toBe(TIMEOUT_MS);
      delete written.extra_data.graded_with;
      expect.soft(written, r.name).toEqual(toGradescope(r));
    }
    expect(JSON.parse(fs.readFileSync(path.join(out, 'batch.json'), 'utf8')).submissions).toEqual(graded.map((r) => r.name).sort());
  });

  it('changes no fixture, forges no file, reaches no socket, touches no submission, leaves nothing on the machine', () => {
    expect(sideEffects).toEqual([]);
  });
});

describe('--carry-forward: its attacks in one batch, on every case, beside honest mistakes whose points it carries', () => {
  const submissions = path.join(root, 'carry', 'submissions');
  const out = path.join(root, 'carry', 'out');
  const attacks = Object.keys(EXPECTED).filter((name) => EXPECTED[name].carryForward);
  let batch: { value?: BatchOutcome; failure?: string };

  beforeAll(async () => {
    for (const name of attacks) submission(name, submissions);
    for (const name of CARRIED_BUGS) ownMultiHead(BUGS.find((b) => b.name === name)!.file, submissions, `honest_${name}`);
    materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, 'good');
    batch = await isolated<BatchOutcome>(['batch', submissions, out, String(TIMEOUT_MS), String(MEMORY_BYTES), String(JOBS), String(BUDGET_MS), 'carry']);
  }, BATCH_LIMIT_MS);

  const result = (name: string) => batch.value?.graded.find((r) => r.name === name);

  it.each(attacks)('%s carries nothing', (name) => {
    expect(result(name), batch.failure).toBeDefined();
    expect(problems(result(name)!, EXPECTED[name])).toEqual([]);
  });

  it.each(CARRIED_BUGS)('an honest %s under a multi-head attention that calls it: every multi-head case carried, hidden too', (name) => {
    const graded = result(`honest_${name}`);
    expect(graded, batch.failure).toBeDefined();
    const multiHead = graded!.cases.filter((c) => c.fn === 'multihead_self_attention');
    // A case the mistake does not reach passes on its own (scale missing with one feature per head:
    // √d_head is 1); every other one passes by carrying, the visible ones and some hidden ones.
    expect(multiHead.map((c) => [c.name, c.status, c.reason])).toEqual(multiHead.map((c) => [c.name, 'passed', c.reason === '' ? '' : CARRIED_REASON]));
    expect(multiHead.filter((c) => !c.hidden).every((c) => c.reason === CARRIED_REASON)).toBe(true);
    expect(multiHead.some((c) => c.hidden && c.reason === CARRIED_REASON)).toBe(true);
    expect(graded!.cases.some((c) => c.fn === 'scaled_dot_product_attention' && c.status === 'failed')).toBe(true);
  });

  it('the reference keeps full marks; nothing reached the sockets or was left on the machine', () => {
    expect(result('good')?.score, batch.failure).toBe(GRADED_CASES.reduce((sum, c) => sum + c.points, 0));
    expect([...probes.reached(), ...leftHere()]).toEqual([]);
  });
});

describe('afterwards', () => {
  it("the project's fixtures still match fixtures/manifest.json", () => {
    const manifest = readManifest(FIXTURES_DIR);
    const mismatched = Object.entries(manifest.fixtures).flatMap(([key, entry]) =>
      Object.entries(entry.files)
        .filter(([name, file]) => sha256(fs.readFileSync(path.join(FIXTURES_DIR, key, name))) !== file.sha256)
        .map(([name]) => `fixtures/${key}/${name}`),
    );
    expect(mismatched).toEqual([]);
    expect(fixtureChanges()).toEqual([]);
  });

  it('no child left anything on the machine: no socket file, heap snapshot, report, trace or core in any folder anyone may write, the project or the grader\'s cache; every such folder keeps its mode', () => {
    expect(leftHere()).toEqual([]);
    expect(modesChanged(modes)).toEqual([]);
  });
});
