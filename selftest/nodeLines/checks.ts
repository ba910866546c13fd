/**
 * What must hold under every supported Node line, run with that line's own `node` (the grader's
 * children run the same binary, so the permission flags and containment are that line's):
 * the reference gets full marks from `npm run grade -- --reference` (as root, also without
 * CAP_SYS_ADMIN, as in Docker); a batch of unseen correct
 * solutions, realistic bugs and hostile submissions is graded as each expects (BATCH); the students'
 * `npm test -- -t scaled_dot_product` passes on the reference, and `npm test` on an unseen correct
 * submission; a child that cannot start for a reason of the grader's own is a grader error
 * with a non-zero exit, never a student's crash; and the similarity check runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import type { CaseStatus } from '../../lib/model/result';
import { resultsFile } from '../../lib/report/batchReport';
import type { GradescopeResults } from '../../lib/report/gradescope';
import { visibleCases, type GradedFunction } from '../../tests/cases';
import { BUGS, CORRECT } from '../catalogue';
import { runCollected, type Run } from './run';
import { materialize } from '../grader/materialize';
import { WITHOUT_SYS_ADMIN } from '../simulatedSettings';

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
  /** Wall time, for the log: CI's time is shared by every line. */
  seconds?: number;
}

interface Expected {
  file: string;
  /** The functions that lose points; all others must pass every case. 'all': every function. */
  breaks?: GradedFunction | 'all';
  /** How the cases of the broken functions may end (at least one of them not passed). */
  statuses?: readonly CaseStatus[];
  /** The known mistake at least one failing case must be diagnosed as. */
  mistake?: string;
  /** No test's output may match this: the attack says so when it got through. */
  notOutput?: RegExp;
}

const ATTACKS = path.join(PROJECT_ROOT, 'selftest', 'attacks');
const attack = (name: string) => path.join(ATTACKS, `${name}.ts`);
const bug = (name: string): Expected => {
  const entry = BUGS.find((b) => b.name === name)!;
  return { file: entry.file, breaks: entry.breaks, statuses: ['failed', 'passed'], mistake: entry.mistake };
};

/** A few of each kind: enough to see each line's containment at work, few enough for CI's time. */
const BATCH: Record<string, Expected> = {
  correct_float32_loops: { file: CORRECT.find((c) => c.name === 'float32_loops')!.file },
  correct_plain_loops: { file: CORRECT.find((c) => c.name === 'plain_loops_number_arrays')!.file },
  scale_missing: bug('scale_missing'),
  causal_off_by_one: bug('causal_off_by_one'),
  exit_at_import: { file: attack('exit_at_import'), breaks: 'all', statuses: ['crashed'] },
  hang_in_causal_mask: { file: attack('hang_in_causal_mask'), breaks: 'causal_mask', statuses: ['timeout'] },
  static_node_imports: { file: attack('static_node_imports'), breaks: 'all', statuses: ['refused'] },
  spawn_process: { file: attack('spawn_process'), breaks: 'causal_mask', statuses: ['error'], notOutput: /spawned a process|started a worker/ },
  read_expected_from_disk: { file: attack('read_expected_from_disk'), breaks: 'all', statuses: ['failed', 'error'] },
};

const VISIBLE = visibleCases();
const VISIBLE_MAX = VISIBLE.reduce((sum, c) => sum + c.points, 0);

/** `args` under the line's `node` (after `prefix`, a wrapper such as setpriv), as a promise: the lines' checks run side by side. */
function runUnder(binDir: string, args: string[], env: NodeJS.ProcessEnv = {}, pathFirst: string[] = [], prefix: string[] = []): Promise<Run> {
  const [file, ...rest] = [...prefix, path.join(binDir, 'node'), ...args];
  return runCollected(file, rest, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env, PATH: [...pathFirst, binDir, process.env.PATH ?? ''].join(path.delimiter) },
    limitMs: RUN_LIMIT_MS,
  });
}

/** A hang guard per command, not a speed check. */
const RUN_LIMIT_MS = 180_000;

const gradeArgs = (...flags: string[]) => [RUN_TS, 'scripts/grade.ts', ...flags];
const tail = (run: Run) => `exit ${run.status}; ${`${run.stdout}\n${run.stderr}`.trim().split('\n').slice(-3).join(' | ').slice(0, 600)}`;

async function checkReference(binDir: string, _work: string): Promise<CheckResult> {
  const run = await runUnder(binDir, gradeArgs('--reference'));
  const ok = run.status === 0 && run.stdout.trimEnd().endsWith(`Total: ${VISIBLE_MAX}/${VISIBLE_MAX}`);
  return { name: 'npm run grade -- --reference: full marks', ok, detail: ok ? '' : tail(run) };
}

/**
 * As root without CAP_SYS_ADMIN, as in Docker: the grader finds no namespaces and gives each child
 * a uid and a root folder of its own, built around this line's own binary (lib/sandbox/jail.ts).
 */
async function checkReferenceWithoutSysAdmin(binDir: string, work: string): Promise<CheckResult> {
  const json = path.join(work, 'without-sys-admin.json');
  const run = await runUnder(binDir, gradeArgs('--reference', '--json', json), {}, [], WITHOUT_SYS_ADMIN);
  const written = fs.existsSync(json) ? (JSON.parse(fs.readFileSync(json, 'utf8')) as GradescopeResults) : undefined;
  const ok = run.status === 0 && written?.score === VISIBLE_MAX && written.extra_data.containment?.setting === 'own-uids';
  return { name: 'npm run grade -- --reference as root without CAP_SYS_ADMIN (Docker): full marks, own uids', ok, detail: ok ? '' : tail(run) };
}

/** Everything wrong with one graded batch entry, as sentences. */
function problems(results: GradescopeResults, expected: Expected): string[] {
  const found: string[] = [];
  const statuses = results.extra_data.cases;
  const broken = (fn: GradedFunction) => expected.breaks === 'all' || expected.breaks === fn;
  let earned = 0;
  for (const c of VISIBLE) {
    const status = statuses[c.name];
    if (status === 'passed') earned += c.points;
    if (!broken(c.fn)) {
      if (status !== 'passed') found.push(`${c.name}: ${status}, expected passed`);
    } else if (!expected.statuses!.includes(status)) found.push(`${c.name}: ${status}, expected ${expected.statuses!.join(' or ')}`);
  }
  const brokenCases = VISIBLE.filter((c) => broken(c.fn));
  if (brokenCases.length > 0 && brokenCases.every((c) => statuses[c.name] === 'passed')) found.push('every test passed');
  if (expected.mistake && !Object.values(results.extra_data.diagnoses).some((ids) => ids.split('|').includes(expected.mistake!))) {
    found.push(`no test diagnosed as ${expected.mistake}`);
  }
  if (Math.abs(results.score - earned) > 1e-9) found.push(`score ${results.score}, but the passed tests are worth ${earned}`);
  const leaked = results.tests.find((t) => expected.notOutput?.test(t.output ?? ''));
  if (leaked) found.push(`${leaked.name}: the attack got through: ${leaked.output?.slice(0, 200)}`);
  return found;
}

async function checkBatch(binDir: string, work: string): Promise<CheckResult> {
  const submissions = path.join(work, 'submissions');
  const out = path.join(work, 'out');
  for (const [name, expected] of Object.entries(BATCH)) {
    const dir = materialize(expected.file, submissions, name);
    if (expected.file.startsWith(ATTACKS)) fs.copyFileSync(path.join(ATTACKS, 'kit.ts'), path.join(dir, 'kit.ts'));
  }
  // 2 s, the attack batches' limit (attacks/expectations.ts TIMEOUT_MS), not the default 10: the
  // hang spins for a whole limit. A limit is of CPU time charged to the call (childClock.ts), which
  // a loaded machine does not use up; compiling has a limit of its own (TRANSPILE_LIMIT_MS).
  const run = await runUnder(binDir, gradeArgs('--submissions', submissions, '--out', out, '--timeout', '2', '--jobs', '2'));
  const name = `a batch of ${Object.keys(BATCH).length} correct, buggy and hostile submissions graded as expected`;
  if (run.status !== 0) return { name, ok: false, detail: tail(run) };
  const found = Object.entries(BATCH).flatMap(([submission, expected]) => {
    const file = path.join(out, resultsFile(submission));
    if (!fs.existsSync(file)) return [`${submission}: no ${submission}.json`];
    return problems(JSON.parse(fs.readFileSync(file, 'utf8')) as GradescopeResults, expected).map((p) => `${submission}: ${p}`);
  });
  return { name, ok: found.length === 0, detail: found.join('; ') };
}

/** `npm test [-- -t filter]` as a student runs it, on `submission` (ATTENTION_SUBMISSION); every selected visible test must pass. */
async function npmTest(binDir: string, submission: string, filter?: string): Promise<{ run: Run; ok: boolean; expected: number }> {
  const npmCli = process.env.npm_execpath;
  const vitestArgs = filter ? ['-t', filter] : [];
  const args = npmCli
    ? [npmCli, 'test', ...(filter ? ['--', ...vitestArgs] : [])]
    : [path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...vitestArgs];
  const run = await runUnder(binDir, args, { ATTENTION_SUBMISSION: submission });
  const expected = VISIBLE.filter((c) => !filter || c.name.includes(filter)).length;
  const passed = Number(/Tests\s+(\d+) passed/.exec(run.stdout)?.[1] ?? 0);
  return { run, expected, ok: run.status === 0 && passed === expected && !/\d+ failed/.test(run.stdout) };
}

async function checkStudentLoop(binDir: string, _work: string): Promise<CheckResult> {
  const { run, ok, expected } = await npmTest(binDir, 'reference', 'scaled_dot_product');
  return { name: `npm test -- -t scaled_dot_product on the reference: ${expected} passed`, ok, detail: ok ? '' : tail(run) };
}

async function checkUnseenCorrect(binDir: string, work: string): Promise<CheckResult> {
  const dir = materialize(BATCH.correct_plain_loops.file, path.join(work, 'npm-test'), 'plain_loops');
  const { run, ok, expected } = await npmTest(binDir, dir);
  return { name: `npm test on an unseen correct submission: all ${expected} passed`, ok, detail: ok ? '' : tail(run) };
}

/**
 * A missing layer makes the grader use a weaker sound set (lib/sandbox/containment.ts); when none
 * is left it must stop before the first student. As root, a `setpriv` that refuses everything
 * leaves no way to run student code as anyone but root (nor to make namespaces): the run must stop
 * with one line and exit 1, before any result is written. Not root, the same setpriv starts no
 * child at all, which must end the run the same way.
 */
async function checkChildCannotStart(binDir: string, work: string): Promise<CheckResult> {
  const tools = path.join(work, 'broken-tools');
  fs.mkdirSync(tools, { recursive: true });
  fs.writeFileSync(path.join(tools, 'setpriv'), '#!/bin/sh\necho "setpriv: not permitted here" >&2\nexit 1\n', { mode: 0o755 });
  fs.writeFileSync(path.join(tools, 'prlimit'), '#!/bin/sh\necho "prlimit: not permitted here" >&2\nexit 1\n', { mode: 0o755 });
  const json = path.join(work, 'cannot-start.json');
  const run = await runUnder(binDir, gradeArgs('--reference', '--json', json), {}, [tools]);
  const lines = run.stderr.trim().split('\n');
  const expected = process.getuid?.() === 0 ? /^grade: could not grade: .*(student code would run as root|before its runtime started)/ : /^grade: could not grade: /;
  const ok = run.status === 1 && expected.test(lines.at(-1) ?? '') && !/Total:/.test(run.stdout) && !fs.existsSync(json);
  return { name: 'a child that cannot be contained is a grader error: exit 1, no results', ok, detail: ok ? '' : tail(run) };
}

/** The similarity check (its reading child processes, TypeScript's parser) finds a disguised copy: on every line. */
async function checkSimilarity(binDir: string, work: string): Promise<CheckResult> {
  const submissions = path.join(work, 'similar');
  const files = {
    original: path.join(PROJECT_ROOT, 'selftest', 'similarity', 'corpus', 'reference.ts'),
    copy: path.join(PROJECT_ROOT, 'selftest', 'similarity', 'corpus', 'reference_disguised.ts'),
    other: path.join(PROJECT_ROOT, 'selftest', 'catalogue', 'correct', 'plain_loops.ts'),
  };
  for (const [name, file] of Object.entries(files)) {
    fs.mkdirSync(path.join(submissions, name), { recursive: true });
    fs.copyFileSync(file, path.join(submissions, name, 'index.ts'));
  }
  const run = await runUnder(binDir, [RUN_TS, 'scripts/similarity.ts', '--submissions', submissions, '--out', path.join(work, 'similarity')]);
  const ok = run.status === 0 && /^compared 3 submissions: 1 pair\(s\) at or above/m.test(run.stdout) && fs.existsSync(path.join(work, 'similarity', 'similarity.html'));
  return { name: 'npm run similarity: the copy found, the page written', ok, detail: ok ? '' : tail(run) };
}

const CHECKS = [
  checkReference,
  // Only root can give up CAP_SYS_ADMIN to stand for Docker.
  ...(process.getuid?.() === 0 ? [checkReferenceWithoutSysAdmin] : []),
  checkBatch, checkStudentLoop, checkUnseenCorrect, checkChildCannotStart, checkSimilarity,
];

export async function checkNodeLine(binDir: string): Promise<CheckResult[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'node-line-'));
  // The contained child runs as nobody when the self-tests run as root.
  fs.chmodSync(work, 0o755);
  try {
    const results: CheckResult[] = [];
    // One after another within a line: the lines themselves run side by side (scripts/selftest.ts).
    for (const check of CHECKS) {
      const start = Date.now();
      results.push({ ...(await check(binDir, work)), seconds: (Date.now() - start) / 1000 });
    }
    return results;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** How many checks checkNodeLine makes: a line that cannot be installed counts this many as skipped. */
export const CHECKS_PER_LINE = CHECKS.length;
