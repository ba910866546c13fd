/**
 * npm test's side of the engine (lib/grading/engine.ts): one vitest test per visible case of an
 * assignment, run in the table's order as the grader runs them. The submission is read and checked
 * as the grader does (load.ts); each case runs through the same engine as the grader's, with calls
 * in this process as the grader's child makes them (lib/grading/inProcess.ts); a failure throws
 * what vitest shows, in the grader's words, with the diagnosis of the assignment appended, probing
 * an instance of the submission of its own. The assignment's tests/graded.test.ts only maps its
 * cases to vitest tests.
 */
import path from 'node:path';
import type { GradedCase } from '../assignment/cases';
import { explain, type Outcome } from '../diagnosis/explain';
import type { EarlierCall, ProbeContext } from '../diagnosis/probe';
import { fixturesDir, type Assignment } from '../grading/assignment';
import { CaseEngine } from '../grading/engine';
import { DEFAULT_BUDGET_MS, FunctionLedger } from '../grading/faults';
import { PER_TEST_LIMIT_MS } from '../grading/hangWords';
import { inProcessBackend, InProcessSession, inProcessContext } from '../grading/inProcess';
import type { CaseVerdict } from '../grading/verdict';
import { loadFixture, type LoadedFixture } from '../model/fixtures';
import { runOrder } from '../model/invoke';
import { readManifest, type Manifest } from '../model/manifest';
import { DEFAULT_MEMORY_BYTES } from '../sandbox/outOfMemory';
import type { ErrorInfo } from '../sandbox/protocol';
import { inFreshInstanceOf, loadedFor, loadedSubmission } from './submission';

/** A failed check: the message is the whole story, so no harness stack frames are shown. */
class GradeFailure extends Error {
  override name = 'GradeFailure';
  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${message}`;
  }
}

/**
 * As the grader shows a stack (studentStack in lib/grading/verdict.ts): only the frames in the
 * submission's own folder; the tensor module's, the harness's and vitest's are not the student's to read.
 */
function ownFrames(stack: string, root: string): string[] {
  const folder = root + path.sep;
  return stack.split('\n').filter((line) => /^\s+at /.test(line) && (line.includes(folder) || line.includes(`file://${folder}`)));
}

/** What a vitest test's context lends the suite: where a reporter finds a note that is no failure. */
export interface TestTask {
  meta: object;
}

export interface GradedSuite {
  /** The visible cases, in the order the tests are declared. */
  cases: readonly GradedCase[];
  /** The test of one case: resolves when it passed, throws what vitest shows when it did not. */
  run(graded: GradedCase, task: TestTask): Promise<void>;
}

export function gradedSuite(assignment: Assignment): GradedSuite {
  const visible = runOrder(assignment.cases.filter((c) => !c.hidden));
  /** Each function's share of the budget and its faults, as the grader keeps them for the same cases. */
  const ledger = FunctionLedger.forCases(DEFAULT_BUDGET_MS, visible, assignment.functions);
  const engine = new CaseEngine(assignment, ledger, { timeoutMs: PER_TEST_LIMIT_MS, memoryBytes: DEFAULT_MEMORY_BYTES });
  let backend: ReturnType<typeof inProcessBackend> | undefined;
  /** The visible tests that ran, and whether each passed: a diagnosis may ask for a function's failures. */
  const ran = new Map<string, boolean>();
  // Read once, on the first test that runs: every case's fixture is listed in it.
  let manifest: Manifest | undefined;
  let context: ProbeContext | undefined;

  /** One diagnosis context per run: its own run of a function's tests, when it needs one, is made once for every test that asks. */
  async function diagnosis(): Promise<ProbeContext> {
    if (context) return context;
    const loaded = await loadedSubmission(assignment);
    const { probes, probe, checked } = loaded;
    const known = (fn: string) => {
      const all = visible.filter((c) => c.fn === fn);
      return all.every((c) => ran.has(c.name)) ? all.filter((c) => !ran.get(c.name)).map((c) => c.name) : undefined;
    };
    const inProcess = inProcessContext(probe, new InProcessSession(await probes(), assignment.functions, checked.entryName), assignment, known);
    return (context ??= { ...inProcess, callsBefore, inFreshInstance: inFreshInstanceOf(assignment, loaded) });
  }

  /** The tests that ran before `graded` in this run, in order: the calls the graded instance met before its call (a -t filter runs fewer). */
  function callsBefore(graded: GradedCase): EarlierCall[] {
    const at = visible.findIndex((c) => c.name === graded.name);
    return visible.slice(0, Math.max(0, at)).filter((c) => ran.has(c.name)).map((c) => {
      let fixture: LoadedFixture | undefined;
      const read = () => (fixture ??= loadFixture(c.fixture, { manifest: (manifest ??= readManifest(fixturesDir(assignment))), fixturesDir: fixturesDir(assignment) }));
      return { name: c.name, fn: c.fn, inputs: () => ({ params: read().params, inputs: read().inputs }) };
    });
  }

  /**
   * What the diagnosis found about a failure, as the grader's diagnosis would say it; '' for none.
   * The assignment's diagnosis loads at the first failure that asks (Assignment.diagnosis): a run
   * where everything passes (the student loop, once the work is done) does not load it.
   */
  async function noteOn(graded: GradedCase, fixture: LoadedFixture, evidence: Outcome | undefined): Promise<string> {
    if (!evidence) return '';
    return (await explain(await assignment.diagnosis?.(), graded, fixture, evidence, await diagnosis())).note;
  }

  /**
   * What the code threw, as vitest shows it, with what the diagnosis found appended (a stub's
   * message says it all): an Error of this suite's own, made of the call's description (name,
   * message, the student's frames), read under the call's limit as the grader's child reads it
   * (lib/sandbox/errorInfo.ts). The thrown value itself never reaches vitest, which would read its
   * getters again with no limit: one that never returned left npm test hung for good.
   */
  async function thrown(described: ErrorInfo, graded: GradedCase, fixture: LoadedFixture, root: string): Promise<Error> {
    const note = described.notImplemented ? '' : await noteOn(graded, fixture, { kind: 'threw', name: described.name, message: described.message });
    const message = [described.message, note].filter(Boolean).join('\n');
    const err = new Error(message);
    err.name = described.name;
    err.stack = [`${described.name}: ${message}`, ...ownFrames(described.stack, root)].join('\n');
    return err;
  }

  /** What vitest shows of a case that did not pass: the grader's words for it, laid out as npm test always has. */
  async function failure(graded: GradedCase, fixture: LoadedFixture, verdict: CaseVerdict, thrownError: ErrorInfo | undefined, root: string): Promise<Error> {
    const { status, reason, details, evidence } = verdict;
    if (status === 'failed') {
      // Only a failure probes, or reads the mistakes' outputs (fixture.mistakes() is lazy).
      const note = await noteOn(graded, fixture, evidence);
      return new GradeFailure([`${graded.name} (${graded.points} pt): ${graded.what}`, reason, details, note].filter(Boolean).join('\n'));
    }
    if (evidence?.kind === 'unreadable') return new GradeFailure([evidence.message, await noteOn(graded, fixture, evidence)].filter(Boolean).join('\n'));
    // What the code threw, as its own error (its own status), unless a fault's words say it better.
    if (thrownError && (status === 'error' || status === 'not_implemented')) return thrown(thrownError, graded, fixture, root);
    const failed = new GradeFailure(reason);
    // The memory cap reached by an allocation: the stack shows the student's frames.
    if (thrownError) failed.stack = [failed.stack, ...ownFrames(thrownError.stack, root)].join('\n');
    return failed;
  }

  return {
    cases: visible,
    async run(graded, task) {
      // A folder the grader would not run fails every test here, in its words (load.ts): the first says why.
      const { graded: impl, checked } = await loadedFor(assignment, graded.name);
      backend ??= inProcessBackend(new InProcessSession(impl, assignment.functions, checked.entryName, { ledger }), checked.root, checked.label);
      // Read inside the test: a -t filter that skips the case skips its file reads too.
      const fixture = loadFixture(graded.fixture, { manifest: (manifest ??= readManifest(fixturesDir(assignment))), fixturesDir: fixturesDir(assignment) });
      ran.set(graded.name, false);
      const { verdict, printed, inputsChanged, thrown: thrownError } = await engine.run(graded, fixture, backend);
      if (printed) console.log(printed);
      if (inputsChanged) {
        console.warn(inputsChanged);
        // For reporters (the JSON one carries `meta`): the note is no failure, so it is not in the result.
        (task.meta as { notes?: string[] }).notes = [inputsChanged];
      }
      if (verdict.status === 'passed') {
        ran.set(graded.name, true);
        return;
      }
      throw await failure(graded, fixture, verdict, thrownError, checked.root);
    },
  };
}
