/**
 * Grades one submission folder: its code runs in a child process (lib/sandbox), case by case;
 * this process reads each answer, checks it against the expected values and awards the points.
 *
 * The submission is read once, by the intake (lib/intake), and from then on travels as text: it is
 * parsed and transpiled in a process of its own under a time limit (no parser meets its text in
 * this process), loaded by the child, and run case by case under a per-case limit and a budget for
 * the whole submission.
 */
import os from 'node:os';
import path from 'node:path';
import { take, type Taken } from '../intake/take';
import { IntakeError, type Submission } from '../intake/intake';
import { GraderError } from '../errors';
import { buildChildRuntime } from '../sandbox/build';
import { closedToOthers } from '../sandbox/runtimeReach';
import { childCommand, containmentReport, type ChildCommand } from '../sandbox/containment';
import { ChildSession, type SessionOptions } from '../sandbox/session';
import { transpileInChild, warmTranspiler, type TranspileOutcome } from '../sandbox/transpilePool';
import { loadVerdict } from '../sandbox/loadCheck';
import { DEFAULT_MEMORY_BYTES } from '../sandbox/outOfMemory';
import { isPrepared, type PreparedSubmission, type TranspileJob } from '../sandbox/prepared';
import type { WorkCache } from '../workCache';
import type { Variants } from '../model/variants';
import { checkedSubmission, startTypeCheck, TYPE_CHECK_LIMITS, type TypeNotes } from '../typecheck/run';
import { boundFeedback } from '../text/bound';
import { fixturesDir, type Assignment } from './assignment';
import type { GradedCase } from '../assignment/cases';
import { carryForward, heatmaps as heatmapsOf } from './afterGrading';
import { explainFailures } from './diagnoseInChild';
import { DEFAULT_BUDGET_MS, FunctionLedger } from './faults';
import { PER_TEST_LIMIT_MS } from './hangWords';
import { loadFixture, type LoadedFixture } from '../model/fixtures';
import { readManifest } from '../model/manifest';
import { totals, type AttentionHeatmap, type SubmissionResult } from '../model/result';
import { caseResult, studentStack, withoutRunning } from './verdict';
import { CaseEngine, phases, runPhases, verdictsOf, type Backend } from './engine';
import { runOrder } from '../model/invoke';

export { withoutRunning } from './verdict';

export interface GradeOptions extends Omit<SessionOptions, 'functions'> {
  /** What is graded: the assignment's functions (and what it knows of them). */
  assignment: Assignment;
  /** The cases to grade: the assignment's visible ones, or all of them (--hidden). */
  cases: readonly GradedCase[];
  /** Fixtures by key, loaded and sha256-checked once per run (loadCaseFixtures). */
  fixtures: ReadonlyMap<string, LoadedFixture>;
  /** Probe each failed attention case for its probabilities (SubmissionResult.heatmaps), after grading. */
  heatmaps?: boolean;
  /** Heatmaps of hidden cases show their expected probabilities: for a page only instructors see. */
  instructorView?: boolean;
  /** The whole submission's time budget, every case and probe together (DEFAULT_BUDGET_MS). */
  budgetMs?: number;
  /** Type errors as unscored notes, checked once for a batch (typeCheckSubmissions); absent: this submission alone. */
  typeNotes?: TypeNotes;
  /** Error carried forward (carryForward.ts): off unless the instructor asks for it. */
  carryForward?: boolean;
  /**
   * The submission as a batch already read it (lib/batch/provenance.ts take): graded as read, not
   * read again, so the hash, the type check and the grading see one snapshot of the folder.
   */
  taken?: Taken;
  /** Transpiled submissions kept from an earlier run into the same output folder (lib/workCache.ts); a batch's, with its typeNotes. */
  transpileCache?: WorkCache;
  /** --variants: each submission's hidden cases drawn for it, built in this process (lib/model/variants.ts). */
  variants?: Variants;
}

export { DEFAULT_MEMORY_BYTES } from '../sandbox/outOfMemory';
export const DEFAULT_TIMEOUT_MS = PER_TEST_LIMIT_MS;
export { DEFAULT_BUDGET_MS } from './faults';
/**
 * CPU time a submission's load check and transpiling may be charged (not wall time: load must not
 * fail a correct submission). Honest code of a few hundred lines takes tens of milliseconds.
 */
export const TRANSPILE_LIMIT_MS = 10_000;

/**
 * The child runtime, built once, and the contained command that starts each child. `hide`: the
 * folders a child must not see into (a batch's submissions and results, the temp folder).
 */
export function prepareChild(memoryBytes = DEFAULT_MEMORY_BYTES, hide: readonly string[] = [os.tmpdir()]): ChildCommand {
  const runtime = buildChildRuntime();
  return childCommand({ runtimeRoot: runtime.root, childEntry: runtime.entry, memoryBytes, hide });
}

/**
 * Starts one contained child with no submission and waits for its runtime, and for a batch
 * (`batch`) one transpiling process: when this machine's Node or containment cannot start them,
 * the run stops with an error before any student is graded, instead of reporting every student as
 * crashed. A submission graded alone is transpiled in its own checking process (checkAndTranspile),
 * which says so itself when it cannot start.
 */
export async function checkChildStarts(child: ChildCommand, batch: boolean): Promise<void> {
  const session = new ChildSession({ child, functions: [], timeoutMs: DEFAULT_TIMEOUT_MS, outputCap: 4096 });
  try {
    // The transpiling process starts meanwhile: the first submissions then wait on neither.
    await Promise.all([session.started(), batch && warmTranspiler()]);
  } catch (err) {
    // A child that runs as another user cannot reach a runtime behind a folder closed to others: say which.
    const closed = child.setting && child.setting !== 'same-user' ? closedToOthers(buildChildRuntime().root) : undefined;
    if (!closed) throw err;
    throw new GraderError(
      `contained children run as another user than the grader (${child.setting}) and may not enter ${closed.folder} (mode ${closed.mode}), ` +
        `on the way to the child runtime: let other users enter it (chmod o+x ${closed.folder}) or grade from a project in folders they may enter`,
    );
  } finally {
    session.kill();
  }
}

/**
 * Loads every case's fixture once from the assignment's fixtures, checking each file (the
 * mistakes' outputs too) against the manifest's sha256.
 */
export function loadCaseFixtures(assignment: Pick<Assignment, 'root'>, cases: readonly GradedCase[]): Map<string, LoadedFixture> {
  const dir = fixturesDir(assignment);
  const manifest = readManifest(dir);
  return new Map(
    cases.map((c) => {
      const fixture = loadFixture(c.fixture, { verify: true, manifest, fixturesDir: dir });
      // Read now, not at the first failure: tampering is refused before any student code runs.
      fixture.mistakes();
      fixture.probabilities();
      return [c.fixture, fixture];
    }),
  );
}

/** Each submission's type check may take as long as one test may (in CPU time, see typecheck/run.ts). */
const typeCheckLimits = (timeoutMs: number) => ({ ...TYPE_CHECK_LIMITS, submissionMs: timeoutMs });

/** Starts one type check for many submissions as a batch took them (those the intake refused are left out). */
export function typeCheckSubmissions(taken: readonly { name: string; taken: Taken }[], timeoutMs: number, cache?: WorkCache): TypeNotes {
  return startTypeCheck(taken.flatMap(({ name, taken: t }) => (t instanceof Error ? [] : [checkedSubmission(name, t)])), typeCheckLimits(timeoutMs), cache);
}

/** The submission as the intake reads it (or as a batch already took it), or the result that says why it cannot be graded. */
function intake(dir: string, name: string, cases: readonly GradedCase[], taken?: Taken): Submission | SubmissionResult {
  const read = taken ?? take(dir, path.basename(dir));
  if (!(read instanceof Error)) return read;
  if (!(read instanceof IntakeError)) throw read;
  return read.kind === 'missing'
    ? withoutRunning(name, cases, 'error', read.message, [read.message])
    : withoutRunning(name, cases, 'refused', read.message, [read.message]);
}

export async function gradeSubmission(dir: string, name: string, options: GradeOptions): Promise<SubmissionResult> {
  const graded = await gradeContained(dir, name, options);
  // However many notes the submission caused, a result keeps a bounded few of each kind.
  const result = { ...graded, feedback: boundFeedback(graded.feedback), ...(options.assignment.parts && { parts: [...options.assignment.parts.on] }) };
  // Said of every result whose code ran: the same code is contained differently on another machine.
  return result.cases.some((c) => c.status !== 'refused') ? { ...result, containment: containmentReport(options.child) } : result;
}

/**
 * A cache's entry for this very job, or TypeScript in a child process (and the result kept when
 * it finished); `checked` as transpileInChild calls it.
 */
async function transpileCached(job: TranspileJob, cache: WorkCache | undefined, checked: () => void): Promise<TranspileOutcome> {
  const kept = cache?.get(job, isPrepared);
  if (kept) return { kind: 'done', prepared: kept };
  const transpiled = await transpileInChild(job, TRANSPILE_LIMIT_MS, checked);
  if (transpiled.kind === 'done') cache?.set(job, transpiled.prepared);
  return transpiled;
}

/**
 * A grading's own type check of its submission, with the transpile done first in the same
 * checking process (typecheck/run.ts): TypeScript is loaded once for both, where the transpiling
 * pool would start a process of its own to load it again.
 */
function checkAndTranspile(name: string, submission: Submission, job: TranspileJob, timeoutMs: number, checked: () => void): { typeNotes: TypeNotes; transpiled: Promise<TranspileOutcome> } {
  let done!: (outcome: TranspileOutcome | GraderError) => void;
  const transpiled = new Promise<TranspileOutcome>((resolve, reject) => (done = (outcome) => (outcome instanceof GraderError ? reject(outcome) : resolve(outcome))));
  const typeNotes = startTypeCheck([checkedSubmission(name, submission)], typeCheckLimits(timeoutMs), undefined, undefined, { job, limitMs: TRANSPILE_LIMIT_MS, checked, done });
  return { typeNotes, transpiled };
}

/** Why a submission the transpiling process could not read fails to load: what happened, to which file, and what to do. */
function unreadable(outcome: Exclude<TranspileOutcome, { kind: 'done' }>): string {
  const at = outcome.file ? ` (reading ${outcome.file})` : '';
  return outcome.kind === 'timeout'
    ? `the submission could not be compiled within ${TRANSPILE_LIMIT_MS / 1000} s of CPU time${at}: simplify deeply nested code`
    : `the submission could not be compiled: ${outcome.message}${at}; simplify deeply nested code`;
}

async function gradeContained(dir: string, name: string, options: GradeOptions): Promise<SubmissionResult> {
  const started = Date.now();
  const submission = intake(dir, name, options.cases, options.taken);
  if ('cases' in submission) return submission;
  const session = new ChildSession({ ...options, functions: options.assignment.functions });
  const job = { files: Object.fromEntries(submission.files), entry: submission.entry, label: submission.label };
  // The child starts once the load check has passed, while TypeScript transpiles: a submission
  // that cannot load starts none (a stream of them once held every uid of the block, own-uids,
  // while their killed children were still exiting).
  const warmUp = () => session.warmUp();
  // Type notes handed in (a batch's one checking process, or none): the pool transpiles. A grading
  // that checks its own submission has both done in that one checking process.
  const { typeNotes, transpiled: transpiling } = options.typeNotes
    ? { typeNotes: options.typeNotes, transpiled: transpileCached(job, options.transpileCache, warmUp) }
    : checkAndTranspile(name, submission, job, options.timeoutMs, warmUp);
  try {
    const transpiled = await transpiling;
    if (transpiled.kind !== 'done') {
      const problem = unreadable(transpiled);
      return withoutRunning(name, options.cases, 'error', problem, [...submission.notes, problem], 'graded');
    }
    const { prepared } = transpiled;
    const feedback = [...submission.notes, ...prepared.notes];
    // As npm test says it (lib/suite/load.ts): a file that does not parse, an import that finds
    // nothing or may not be used, stops every test.
    const stopped = loadVerdict(prepared);
    if (stopped) return withoutRunning(name, options.cases, stopped.status, stopped.reason, [...feedback, ...prepared.refused, ...prepared.loadErrors], 'graded');
    session.setSubmission(prepared.load);
    // --variants: this submission's own hidden cases, expected values and all, kept in this process.
    const fixtures: ReadonlyMap<string, LoadedFixture> = options.variants
      ? new Map([...options.fixtures, ...options.variants.draw(name, options.cases)])
      : options.fixtures;
    const ledger = FunctionLedger.forCases(options.budgetMs ?? DEFAULT_BUDGET_MS, options.cases, options.assignment.functions);
    session.ledger = ledger;
    const engine = new CaseEngine(options.assignment, ledger, { timeoutMs: options.timeoutMs, memoryBytes: options.child.memoryBytes ?? DEFAULT_MEMORY_BYTES });
    const backend = childBackend(session, prepared);
    // Hidden cases run after every visible one, in a child of their own: nothing a hidden case
    // gave its child (its inputs, anything it printed) can reach another child.
    const runs = await runPhases(engine, options.cases, (graded) => fixtures.get(graded.fixture)!, backend, () => session.kill());
    const verdicts = verdictsOf(runs);
    const resultOf = (c: GradedCase) => caseResult(c, verdicts.get(c.name)!, runs.get(c.name)?.printed, runs.get(c.name)?.durationMs);
    const heatmaps = new Map<string, AttentionHeatmap>();
    // What a call changed of its inputs, said once per function, of a visible test only: a hidden test's name is not for the student yet.
    const notes = new Map<string, string>();
    for (const graded of runOrder(options.cases.filter((c) => !c.hidden))) {
      const changed = runs.get(graded.name)?.inputsChanged;
      if (changed && !notes.has(graded.fn)) notes.set(graded.fn, changed);
    }
    if (!engine.loadFailed) {
      // The diagnosis probes an instance of its own, after every graded call of every phase: what
      // its probes do reaches no graded call, and they are paid from what each function's share
      // left (a probe never costs a test its time). After the visible cases alone it is a new
      // instance in the child that graded them, as npm test probes one beside its graded instance;
      // after hidden cases, a new child: that one has seen their inputs, and a visible test's
      // diagnosis must not be able to tell them.
      const graded = phases(options.cases);
      if (graded.length > 1) session.kill();
      else session.freshInstance();
      for (const cases of graded) {
        // The instructor's choice: multi-head cases right on the student's own attention earn their points.
        if (options.carryForward) await carryForward(options.assignment, session, cases, fixtures, verdicts);
        await explainFailures(options.assignment, session, cases, fixtures, verdicts);
        // A probe that hangs or kills the child changes no verdict either.
        if (options.heatmaps) {
          for (const [case_, heatmap] of await heatmapsOf(options.assignment, session, cases, fixtures, cases.map(resultOf), options.instructorView)) heatmaps.set(case_, heatmap);
        }
      }
    }
    const results = options.cases.map(resultOf);
    const result: SubmissionResult = {
      name, status: 'graded', feedback: [...feedback, ...notes.values(), ...(await typeNotes(name))], cases: results, executionTimeMs: Date.now() - started, ...totals(results),
    };
    if (options.heatmaps && !engine.loadFailed) result.heatmaps = heatmaps;
    return result;
  } finally {
    session.kill();
  }
}

/** The grader's backend of the engine: each call in the session's contained child, a thrown error's stack mapped back to the student's source. */
function childBackend(session: ChildSession, prepared: PreparedSubmission): Backend {
  return { call: (fn, inputs) => session.call(fn, inputs), takeOutput: () => session.takeOutput(), stackOf: (error) => studentStack(error, prepared) };
}
