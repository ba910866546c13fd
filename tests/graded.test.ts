/**
 * The graded suite: one vitest test per visible case of tests/cases.ts, named as in the table, in
 * the table's order (the grader calls them in the same order). The submission is read and checked
 * as the grader does (lib/suite/load.ts); each call is made as the grader's child makes it
 * (lib/grading/inProcess.ts: its own copy of the inputs, output capped, a function's faults and
 * time share as in lib/grading/faults.ts); the verdict comes from lib/grading/judge.ts and the
 * diagnosis of a failure from lib/diagnosis, probing an instance of the submission of its own.
 * One spec file on purpose: vitest loads every spec file even when `-t` skips its tests, and each
 * file costs a worker start (the student loop would double).
 */
import path from 'node:path';
import { test } from 'vitest';
import { specOf } from '../lib/assignment/functions';
import { explain, type Outcome } from '../lib/diagnosis/explain';
import type { ProbeContext } from '../lib/diagnosis/probe';
import { DEFAULT_BUDGET_MS, faultOf, FunctionLedger } from '../lib/grading/faults';
import { loadFixture, type LoadedFixture } from '../lib/model/fixtures';
import { diedWords, didNotReturn, inputsChangedNote, memoryWords, PER_TEST_LIMIT_MS } from '../lib/grading/hangWords';
import { InProcessSession, inProcessContext, ownPlace } from '../lib/grading/inProcess';
import { runOrder } from '../lib/model/invoke';
import { judgeValue } from '../lib/grading/judge';
import { readManifest, type Manifest } from '../lib/model/manifest';
import type { ErrorInfo } from '../lib/sandbox/protocol';
import { loadedFor, loadedSubmission } from '../lib/suite/submission';
import { ASSIGNMENT } from './assignment';
import { visibleCases, type GradedCase } from './cases';

/** A failed check: the message is the whole story, so no harness stack frames are shown. */
class GradeFailure extends Error {
  override name = 'GradeFailure';
  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${message}`;
  }
}

/** Each function's share of the budget and its faults, as the grader keeps them for the same cases. */
const ledger = FunctionLedger.forCases(DEFAULT_BUDGET_MS, visibleCases(), ASSIGNMENT.functions);
let session: InProcessSession | undefined;
/** The visible tests that ran, and whether each passed: a diagnosis may ask for a function's failures. */
const ran = new Map<string, boolean>();

let context: ProbeContext | undefined;

/** One diagnosis context per run: its own run of the attention tests, when it needs one, is made once for every test that asks. */
async function diagnosis(): Promise<ProbeContext> {
  if (context) return context;
  const { probes, probe, checked } = await loadedSubmission(ASSIGNMENT);
  const known = (fn: string) => {
    const all = visibleCases(fn);
    return all.every((c) => ran.has(c.name)) ? all.filter((c) => !ran.get(c.name)).map((c) => c.name) : undefined;
  };
  return (context ??= inProcessContext(probe, new InProcessSession(await probes(), ASSIGNMENT.functions, checked.entryName), ASSIGNMENT, known));
}

/**
 * As the grader shows a stack (studentStack in lib/grading/verdict.ts): only the frames in the
 * submission's own folder; the tensor module's, the adapters' and vitest's are not the student's to read.
 */
function ownFrames(stack: string, root: string): string[] {
  const folder = root + path.sep;
  return stack.split('\n').filter((line) => /^\s+at /.test(line) && (line.includes(folder) || line.includes(`file://${folder}`)));
}

/**
 * What the diagnosis found about a failure, as the grader's diagnosis would say it; '' for none.
 * The assignment's diagnosis loads at the first failure that asks (Assignment.diagnosis): a run
 * where everything passes (the student loop, once the work is done) does not load it.
 */
async function noteOn(graded: GradedCase, fixture: LoadedFixture, evidence: Outcome | undefined): Promise<string> {
  if (!evidence) return '';
  return (await explain(await ASSIGNMENT.diagnosis?.(), graded, fixture, evidence, await diagnosis())).note;
}

/**
 * What the code threw, as vitest shows it, with what the diagnosis found appended (a stub's message
 * says it all): an Error of this suite's own, made of what the call's description says (name,
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

// Read once, on the first test that runs: every case's fixture is listed in it.
let manifest: Manifest | undefined;

for (const graded of runOrder(visibleCases())) {
  test(graded.name, async ({ task }) => {
    // A folder the grader would not run fails every test here, in its words (lib/suite/load.ts): the first says why.
    const { graded: impl, checked } = await loadedFor(ASSIGNMENT, graded.name);
    session ??= new InProcessSession(impl, ASSIGNMENT.functions, checked.entryName, { ledger });
    // Read inside the test: a -t filter that skips the case skips its file reads too.
    const fixture = loadFixture(graded.fixture, { manifest: (manifest ??= readManifest()) });
    ran.set(graded.name, false);
    const blocked = ledger.blocked(graded.fn);
    if (blocked) throw new GradeFailure(blocked.reason);
    const outcome = session.call(graded.fn, fixture);
    if (outcome.output) console.log(outcome.output);
    if ((outcome.kind === 'value' || outcome.kind === 'threw') && outcome.changed.length) {
      const note = inputsChangedNote(ASSIGNMENT, specOf(ASSIGNMENT.functions, graded.fn), outcome.changed, graded.name, fixture.inputs);
      console.warn(note);
      // For reporters (the JSON one carries `meta`): the note is no failure, so it is not in the result.
      (task.meta as { notes?: string[] }).notes = [note];
    }
    const fault = faultOf(outcome, PER_TEST_LIMIT_MS, session.memoryBytes);
    if (fault) ledger.fault(graded.fn, fault, graded.name);
    // The grader's words for the cap (lib/grading/verdict.ts), at the student's line; the stack shows their frames.
    if (fault?.kind === 'memory' && outcome.kind === 'threw') {
      const failure = new GradeFailure(memoryWords(graded.fn, fault.capBytes, ownPlace(outcome.error.stack, checked.root, checked.label)));
      failure.stack = [failure.stack, ...ownFrames(outcome.error.stack, checked.root)].join('\n');
      throw failure;
    }
    if (outcome.kind === 'crashed') throw new GradeFailure(diedWords(outcome.how, false));
    if (outcome.kind === 'timeout') {
      throw new GradeFailure(outcome.budget ? ledger.spentWords(graded.fn, true) : didNotReturn(specOf(ASSIGNMENT.functions, graded.fn).export, PER_TEST_LIMIT_MS, outcome.flooded));
    }
    if (outcome.kind === 'threw') {
      if (!outcome.unreadable) throw await thrown(outcome.error, graded, fixture, checked.root);
      const { message } = outcome.error;
      const note = await noteOn(graded, fixture, { kind: 'unreadable', name: 'ResultError', message });
      throw new GradeFailure([message, note].filter(Boolean).join('\n'));
    }
    const verdict = judgeValue(ASSIGNMENT, graded, outcome.value, fixture);
    if (verdict.status === 'passed') {
      ran.set(graded.name, true);
      return;
    }
    // Only a failure probes, or reads the mistakes' outputs (fixture.mistakes() is lazy).
    const note = await noteOn(graded, fixture, verdict.evidence);
    throw new GradeFailure([`${graded.name} (${graded.points} pt): ${graded.what}`, verdict.reason, verdict.details, note].filter(Boolean).join('\n'));
  });
}
