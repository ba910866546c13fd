/**
 * The attack catalogue (selftest/attacks/): hostile and broken submissions, graded one at a time
 * and then all together in one batch beside a correct submission. For every attack the grader
 * completes, no test earns points that an honest computation did not earn, every lost point has a
 * reason, and the attack's own expectation (EXPECTED) holds. What attacks may do besides their
 * grade is checked too: the fixtures stay byte for byte, no forged file appears, nothing reaches
 * the self-test's TCP port, no environment variable reaches a student, printed output stays capped.
 *
 * An attack that changes files others read (the fixtures), or that must reach the memory cap
 * before the timeout, is graded alone; one that kills its grader's process is graded in a process
 * of its own (attacks/runner.ts), and so is the batch.
 * Whatever an attack manages to change is put back after it is reported, so that a failure of
 * containment does not leave the project broken.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCaseFixtures, prepareChild, type GradeOptions } from '../lib/grading/grade';
import { readManifest, sha256 } from '../lib/grading/manifest';
import type { BatchOutcome } from '../lib/grading/batch';
import type { CaseStatus, SubmissionResult } from '../lib/grading/result';
import { toGradescope } from '../lib/report/gradescope';
import { buildChildRuntime } from '../lib/sandbox/build';
import { FIXTURES_DIR, PROJECT_ROOT, TS_NODE_BIN } from '../lib/paths';
import { GRADED_CASES, visibleCases, type GradedFunction } from '../tests/cases';
import { LAYOUTS, makeOutside, type Layout, type LayoutContext } from './attacks/layouts';
import { grade, gradeOptions } from './grader/harness';
import { materialize, tempDir } from './grader/materialize';

const ATTACKS_DIR = path.join(__dirname, 'attacks');
const TIMEOUT_MS = 2000;
/** The grader's own cap (prepareChild), set low enough that a memory bomb hits it well within the timeout. */
const MEMORY_BYTES = 256 * 1024 ** 2;
const OUTPUT_CAP = 4096;
const JOBS = 2;

interface Expectation {
  /** Functions the submission computes honestly: all their tests must pass. */
  honest: readonly GradedFunction[];
  /** How every other test must end; it earns nothing. */
  statuses: readonly CaseStatus[];
  /** Their reasons must match this… */
  reason?: RegExp;
  /** …and never this: the attack says so in its error when it got through. */
  notReason?: RegExp;
  /**
   * Graded alone, after the others: it changes files the others read, or it must reach the memory
   * cap before the timeout and so needs the cores to itself.
   */
  alone?: true;
  /** Graded in a process of its own: it kills its grader's process. */
  ownProcess?: true;
  /** Graded on the hidden cases as well (one at a time). */
  hidden?: true;
  /** Honest functions whose tests may also end as timeouts of the submission's budget, spent by the others. */
  budgeted?: readonly GradedFunction[];
}

const FUNCTIONS: readonly GradedFunction[] = ['softmax', 'scaled_dot_product_attention', 'causal_mask', 'multihead_self_attention'];
const allBut = (...attacked: GradedFunction[]) => FUNCTIONS.filter((f) => !attacked.includes(f));
const WRONG: readonly CaseStatus[] = ['failed', 'error'];
const REFUSED = { honest: [], statuses: ['refused'], reason: /may not use/ } as const;

const EXPECTED: Record<string, Expectation> = {
  exit_at_import: { honest: [], statuses: ['crashed'], reason: /while loading/ },
  hang_at_import: { honest: [], statuses: ['timeout'], reason: /time limit/ },
  hang_in_causal_mask: { honest: allBut('causal_mask'), statuses: ['timeout'], reason: /time limit/ },
  memory_bomb_typed_arrays: { honest: allBut('causal_mask'), statuses: ['crashed', 'error'], reason: /memory|allocat/i, alone: true },
  memory_bomb_heap: { honest: allBut('causal_mask'), statuses: ['crashed', 'error'], reason: /memory|allocat/i, alone: true },
  stack_overflow: { honest: allBut('softmax'), statuses: ['error'], reason: /call stack/ },
  patch_math: { honest: [], statuses: WRONG },
  patch_number_checks: { honest: [], statuses: WRONG },
  patch_prototypes: { honest: [], statuses: WRONG },
  throw_null: { honest: allBut('softmax', 'causal_mask'), statuses: ['error'], reason: /null|undefined/ },
  throw_unprintable: { honest: allBut('softmax', 'causal_mask'), statuses: ['error'] },
  lying_result: { honest: [], statuses: WRONG },
  proxy_result: { honest: [], statuses: WRONG },
  flood_output: { honest: FUNCTIONS, statuses: [] },
  kill_parent: { honest: allBut('causal_mask'), statuses: ['crashed', 'error'], ownProcess: true },
  import_reference_static: REFUSED,
  require_reference_literal: REFUSED,
  static_node_imports: REFUSED,
  reference_at_runtime: { honest: [], statuses: WRONG },
  read_expected_from_disk: { honest: [], statuses: WRONG, hidden: true },
  overwrite_fixtures: { honest: FUNCTIONS, statuses: [], alone: true },
  forge_results: { honest: [], statuses: WRONG },
  spawn_process: { honest: allBut('causal_mask'), statuses: ['error'], notReason: /spawned a process|started a worker/ },
  open_socket: { honest: allBut('causal_mask'), statuses: ['error'], notReason: /connected to/ },
  print_environment: { honest: allBut('causal_mask'), statuses: ['error'], notReason: /ATTACK_GRADER_SECRET/ },
  channel_garbage: { honest: allBut('causal_mask'), statuses: ['crashed'], reason: /channel/, notReason: /lived/ },
  // A child that is still writing when its limit comes is a timeout: refused either way, never read.
  channel_forged_fields: { honest: [], statuses: ['crashed', 'timeout'], reason: /sent the grader|channel|time limit|time budget/, notReason: /not refused/ },
  channel_stale_ids: { honest: allBut('causal_mask'), statuses: ['crashed', 'failed', 'error', 'timeout'] },
  kill_everyone: { honest: allBut('causal_mask'), statuses: ['error'], reason: /kill\(-1\) succeeded 0 times/ },
  probe_siblings: { honest: allBut('causal_mask'), statuses: ['error'], reason: /probe found nothing/ },
  hang_in_softmax: { honest: [], budgeted: ['causal_mask'], statuses: ['timeout'], reason: /time limit|time budget/ },
  control_characters: { honest: allBut('causal_mask'), statuses: ['error'] },
};

// A separate user and network namespace are applied only when the grader runs as root (as on
// Gradescope and CI); graded by an ordinary user, a child may signal it and use loopback.
// PID and mount namespaces too: without them kill(-1) reaches the grader's other children and
// the folders beside a submission can be seen.
const IS_ROOT = process.getuid?.() === 0;
if (!IS_ROOT) {
  delete EXPECTED.kill_parent;
  delete EXPECTED.open_socket;
  delete EXPECTED.kill_everyone;
  delete EXPECTED.probe_siblings;
}
const LAYOUT_NAMES = Object.keys(LAYOUTS).filter((name) => IS_ROOT || !LAYOUTS[name].root);
/** A submission's whole time budget in these tests: well past what an honest submission needs, well short of the default. */
const BUDGET_MS = 30_000;

/** Set in the grader's process: stands for the tokens and keys a grading machine's environment holds. */
const SECRET = { ATTACK_GRADER_SECRET: 'not-for-students' };

/** What no result may hold: the grader's environment, a file outside the submission, raw control characters. */
function leaks(result: SubmissionResult): string[] {
  const text = JSON.stringify(result);
  const found: string[] = [];
  if (text.includes(SECRET.ATTACK_GRADER_SECRET)) found.push("the grader's environment reached the result");
  if (text.includes('outside-the-submission')) found.push('a file outside the submission reached the result');
  if (result.executionTimeMs > BUDGET_MS + 5000) found.push(`took ${result.executionTimeMs} ms, past its budget of ${BUDGET_MS} ms`);
  return found;
}

/** Everything wrong with a graded result, as sentences; [] when the grader did its job. */
function problems(result: SubmissionResult, expected: Expectation): string[] {
  const found: string[] = leaks(result);
  if (result.status !== 'graded') found.push(`submission status ${result.status}: ${result.feedback[0]}`);
  let honestPoints = 0;
  for (const c of result.cases) {
    const where = `${c.name} (${c.status}: ${c.reason.slice(0, 300) || 'no reason'})`;
    if (c.points !== (c.status === 'passed' ? c.maxPoints : 0)) found.push(`${where}: ${c.points} points for status ${c.status}`);
    if (c.output.length > 2 * OUTPUT_CAP + 200) found.push(`${c.name}: kept ${c.output.length} characters of output`);
    if (expected.honest.includes(c.fn)) {
      honestPoints += c.maxPoints;
      if (c.status !== 'passed') found.push(`${where}: an honest function, expected passed`);
      continue;
    }
    if (expected.budgeted?.includes(c.fn)) {
      if (c.status === 'passed') honestPoints += c.maxPoints;
      else if (!/time budget/.test(c.reason)) found.push(`${where}: an honest function, expected passed or out of budget`);
      continue;
    }
    if (c.points !== 0) found.push(`${where}: earned ${c.points} without computing it`);
    if (!expected.statuses.includes(c.status)) found.push(`${where}: expected ${expected.statuses.join(' or ')}`);
    if (c.reason.trim() === '') found.push(`${c.name}: lost its points without a reason`);
    else if (expected.reason && !expected.reason.test(c.reason)) found.push(`${where}: reason should match ${expected.reason}`);
    if (expected.notReason?.test(c.reason)) found.push(`${where}: the attack got through`);
  }
  if (Math.abs(result.score - honestPoints) > 1e-9) found.push(`score ${result.score}, expected ${honestPoints}`);
  return found;
}

/** For a layout attack: nothing ran, every test refused or failed to load, with the reason. */
function layoutProblems(result: SubmissionResult, layout: Layout): string[] {
  const found = leaks(result);
  if (result.score !== 0) found.push(`score ${result.score}, expected 0`);
  const statuses = new Set(result.cases.map((c) => c.status));
  if (statuses.size !== 1 || !statuses.has(layout.status)) found.push(`statuses ${[...statuses].join(', ')}, expected ${layout.status}`);
  const reasons = [...new Set(result.cases.map((c) => c.reason))];
  if (!reasons.every((r) => layout.reason.test(r))) found.push(`reason ${reasons[0]?.slice(0, 300)} should match ${layout.reason}`);
  if (result.executionTimeMs > 15_000) found.push(`took ${result.executionTimeMs} ms`);
  return found;
}

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

/** A TCP port on 127.0.0.1 that open_socket is told about (its probe.ts); nothing may reach it. */
const probe = { server: net.createServer(), connections: 0 };
const probeProblems = () => {
  const found = probe.connections ? [`${probe.connections} connection(s) reached the self-test's port`] : [];
  probe.connections = 0;
  return found;
};

const SIDE_EFFECTS: Record<string, () => string[]> = {
  overwrite_fixtures: fixtureChanges,
  forge_results: forgedFiles,
  open_socket: probeProblems,
};

// ── Submissions on disk, and grading in a process of its own ──

const root = tempDir('attacks'); // forge_results guesses batch output folders under os.tmpdir()/attacks-*
let options: Partial<GradeOptions>;
let outside: LayoutContext;

/** An attack as a submission folder: index.ts, base.ts, the shared kit.ts and probe.ts with the real port. */
function submission(name: string, parent: string): string {
  const dir = materialize(path.join(ATTACKS_DIR, `${name}.ts`), parent);
  fs.copyFileSync(path.join(ATTACKS_DIR, 'kit.ts'), path.join(dir, 'kit.ts'));
  const { port } = probe.server.address() as net.AddressInfo;
  fs.writeFileSync(path.join(dir, 'probe.ts'), `export const PROBE_PORT: number = ${port};\n`);
  return dir;
}

/**
 * A command in a PID namespace of its own when root (so that a failure of containment, a kill(-1)
 * that gets out, reaches nothing else on this machine), else as it is.
 */
export function inOwnPidNamespace(command: string[]): string[] {
  return IS_ROOT ? ['unshare', '--pid', '--fork', '--kill-child=SIGKILL', '--mount-proc', '--', ...command] : command;
}

/** A layout attack's folder (attacks/layouts.ts). */
function layout(name: string, parent: string): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { recursive: true });
  LAYOUTS[name].build(dir, outside);
  return dir;
}

/** Runs attacks/runner.ts in its own process group (and PID namespace); afterwards whatever is left of the group is killed. */
function isolated<T>(args: string[]): Promise<{ value?: T; failure?: string }> {
  return new Promise((resolve) => {
    const [file, ...rest] = inOwnPidNamespace([
      process.execPath, TS_NODE_BIN, path.join(ATTACKS_DIR, 'runner.ts'), ...args,
    ]);
    const runner = spawn(file, rest, { cwd: process.cwd(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    runner.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    runner.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    runner.on('close', (code, signal) => {
      try {
        process.kill(-runner.pid!, 'SIGKILL'); // grading children the dead runner could not stop
      } catch {
        // the group is already gone
      }
      if (code === 0) resolve({ value: JSON.parse(Buffer.concat(out).toString('utf8')) as T });
      else resolve({ failure: `the grader process ${signal ? `was killed by ${signal}` : `exited with code ${code}`}: ${Buffer.concat(err).toString('utf8').slice(0, 2000)}` });
    });
  });
}

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
  options = { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS, outputCap: OUTPUT_CAP, child: prepareChild(MEMORY_BYTES) };
  outside = makeOutside(root);
  probe.server.on('connection', (socket) => {
    probe.connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => probe.server.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, SECRET);
});

afterAll(() => {
  probe.server.close();
  for (const name of Object.keys(SECRET)) delete process.env[name];
  fs.rmSync(root, { recursive: true, force: true });
});

describe('each attack graded on its own', () => {
  const one = path.join(root, 'one');
  let allCases: GradeOptions | undefined;

  async function gradeAttack(name: string): Promise<{ result?: SubmissionResult; failure?: string }> {
    const expected = EXPECTED[name];
    const dir = submission(name, one);
    if (expected.ownProcess) {
      const run = await isolated<SubmissionResult>(['grade', dir, name, String(TIMEOUT_MS), String(MEMORY_BYTES)]);
      return { result: run.value, failure: run.failure };
    }
    if (expected.hidden) {
      allCases ??= gradeOptions({ ...options, cases: GRADED_CASES, fixtures: loadCaseFixtures(GRADED_CASES) });
      return { result: await grade(dir, name, allCases) };
    }
    return { result: await grade(dir, name, options) };
  }

  const together = Object.keys(EXPECTED).filter((name) => !EXPECTED[name].alone);
  it.concurrent.for(together)('%s', async (name, { expect }) => {
    const { result, failure } = await gradeAttack(name);
    expect(failure ?? '', 'the grader must complete').toBe('');
    expect(problems(result!, EXPECTED[name])).toEqual([]);
    if (EXPECTED[name].hidden) expect(result!.cases.filter((c) => c.hidden)).toHaveLength(GRADED_CASES.length - visibleCases().length);
    if (name === 'flood_output') expect(result!.cases.find((c) => c.fn === 'softmax')!.output).toMatch(/more (characters|bytes) of output not shown/);
    expect(SIDE_EFFECTS[name]?.() ?? []).toEqual([]);
  });

  it.concurrent.for(LAYOUT_NAMES)('%s (its folder)', async (name, { expect }) => {
    const result = await grade(layout(name, one), name, options);
    expect(layoutProblems(result, LAYOUTS[name])).toEqual([]);
  });

  for (const name of Object.keys(EXPECTED).filter((n) => EXPECTED[n].alone)) {
    it(`${name} (alone)`, async () => {
      const { result } = await gradeAttack(name);
      expect.soft(problems(result!, EXPECTED[name])).toEqual([]);
      expect(SIDE_EFFECTS[name]?.() ?? []).toEqual([]);
    });
  }
});

/** Rows of an RFC 4180 CSV (quoted cells, CRLF line ends). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  for (const [, quoted, plain, end] of text.matchAll(/(?:"((?:[^"]|"")*)"|([^,\r\n]*))(,|\r?\n|$)/g)) {
    row.push(quoted !== undefined ? quoted.replace(/""/g, '"') : plain);
    if (end === ',') continue;
    rows.push(row);
    row = [];
    if (end === '') break;
  }
  return rows.filter((r) => r.length > 1);
}

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
    sideEffects = [...fixtureChanges(), ...forgedFiles(), ...probeProblems(), ...changesPutBack(written, submissions)];
  });

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

  it('the correct submissions keep full marks, in their results and in their grades.csv rows', () => {
    for (const name of ['good', 'good_too']) {
      expect(result(name)?.score, batch.failure).toBe(12);
      expect(result(name)!.cases.every((c) => c.status === 'passed')).toBe(true);
    }
    const [header, ...rows] = parseCsv(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8'));
    const good = Object.fromEntries(header.map((column, i) => [column, rows.find((r) => r[0] === 'good')?.[i]]));
    expect(good).toEqual({
      name: 'good', total: '12', max: '12', status: 'graded',
      ...Object.fromEntries(visibleCases().map((c) => [c.name, String(c.points)])),
    });
  });

  it('grades.csv, the results files and the pages hold what the grader decided, and nothing else is in its output', () => {
    expect(batch.value, batch.failure).toBeDefined();
    const graded = batch.value!.graded;
    expect(fs.readdirSync(out).sort()).toEqual(
      ['grades.csv', 'report.html', 'batch.json', ...graded.flatMap((r) => [`${r.name}.json`, `${r.name}.html`])].sort(),
    );
    // Whatever an attack printed or threw reaches the pages as text, never as markup.
    for (const page of fs.readdirSync(out).filter((f) => f.endsWith('.html'))) {
      expect.soft(fs.readFileSync(path.join(out, page), 'utf8'), page).not.toMatch(/<(script|img|iframe|object|link|a\s[^>]*href="?(https?|javascript):)/i);
    }
    const [header, ...rows] = parseCsv(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8'));
    const total = header.indexOf('total');
    expect(Object.fromEntries(rows.map((r) => [r[0], Number(r[total])]))).toEqual(Object.fromEntries(graded.map((r) => [r.name, r.score])));
    for (const r of graded) {
      const written = JSON.parse(fs.readFileSync(path.join(out, `${r.name}.json`), 'utf8'));
      // Beside what the grader decided, only the record of what it graded with (lib/batch/provenance.ts).
      expect.soft(written.extra_data.graded_with?.options?.timeout_ms, r.name).toBe(TIMEOUT_MS);
      delete written.extra_data.graded_with;
      expect.soft(written, r.name).toEqual(toGradescope(r));
    }
    expect(JSON.parse(fs.readFileSync(path.join(out, 'batch.json'), 'utf8')).submissions).toEqual(graded.map((r) => r.name).sort());
  });

  it('changes no fixture, forges no file, reaches no port, touches no submission', () => {
    expect(sideEffects).toEqual([]);
  });
});

describe('without containment (a bare node child) the same checks fail: the attacks are real', () => {
  const bare = path.join(root, 'bare');
  // print_environment is left out: the session gives every child an empty environment, bare or not.
  const harmless = ['read_expected_from_disk', 'reference_at_runtime', 'spawn_process', 'open_socket'].filter((n) => n in EXPECTED);
  it.concurrent.for(harmless)('%s', async (name, { expect }) => {
    const child = { file: process.execPath, args: [buildChildRuntime().entry], missing: [] };
    const result = await grade(submission(name, bare), name, { ...options, child });
    expect([...problems(result, EXPECTED[name]), ...(SIDE_EFFECTS[name]?.() ?? [])]).not.toEqual([]);
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
});
