/**
 * Grades one submission folder: its code runs in a child process (lib/sandbox), case by case;
 * this process reads each answer, checks it against the expected values and awards the points.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readResult } from '../../adapters';
import { explain, type Diagnosis, type Explanation } from '../diagnosis/diagnose';
import { ResultError } from '../errors';
import { PROJECT_ROOT } from '../paths';
import type { ErrorInfo } from '../sandbox/protocol';
import { buildChildRuntime } from '../sandbox/build';
import { childCommand, type ChildCommand } from '../sandbox/containment';
import { ChildSession, OUT_OF_MEMORY, type SessionOptions, type SessionOutcome } from '../sandbox/session';
import { mapStack } from '../sandbox/sourceMap';
import { prepareSubmission, type PreparedSubmission } from '../sandbox/submission';
import type { GradedCase } from '../../tests/cases';
import { evaluateCase } from './evaluate';
import { loadFixture, type LoadedFixture } from './fixtures';
import { readManifest } from './manifest';
import { probeAttention } from './probe';
import { totals, type CaseResult, type CaseStatus, type SubmissionResult } from './result';

export interface GradeOptions extends SessionOptions {
  cases: readonly GradedCase[];
  /** Fixtures by key, loaded and sha256-checked once per run (loadCaseFixtures). */
  fixtures: ReadonlyMap<string, LoadedFixture>;
  /** Probe each failed attention case for its probabilities (SubmissionResult.heatmaps), after grading. */
  heatmaps?: boolean;
}

export const DEFAULT_MEMORY_BYTES = 2 * 1024 ** 3;

/** The child runtime, built once, and the contained command that starts each child. */
export function prepareChild(memoryBytes = DEFAULT_MEMORY_BYTES): ChildCommand {
  const runtime = buildChildRuntime();
  return childCommand({ runtimeRoot: runtime.root, childEntry: runtime.entry, memoryBytes });
}

/** Loads every case's fixture once, checking each file (the mistakes' outputs too) against the manifest's sha256. */
export function loadCaseFixtures(cases: readonly GradedCase[]): Map<string, LoadedFixture> {
  const manifest = readManifest();
  return new Map(
    cases.map((c) => {
      const fixture = loadFixture(c.fixture, { verify: true, manifest });
      // Read now, not at the first failure: tampering is refused before any student code runs.
      fixture.mistakes();
      return [c.fixture, fixture];
    }),
  );
}

/** A submission is a folder holding index.ts, or a `student/` folder that does. */
export function locateSubmission(dir: string): { root: string; entry: string } | { problem: string } {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    return { problem: `submission folder ${path.basename(dir)} not found: pass the folder holding index.ts` };
  }
  for (const root of [dir, path.join(dir, 'student')]) {
    for (const entry of ['index.ts', 'index.js']) if (fs.existsSync(path.join(root, entry))) return { root, entry };
  }
  return { problem: `${path.basename(dir)} holds no index.ts (nor student/index.ts): put your solution in index.ts` };
}

/** A stack trace as a student should see it: their frames at their lines, no harness internals or machine paths. */
function studentStack(error: ErrorInfo, prepared: PreparedSubmission): string {
  const frames = error.stack
    .split('\n')
    .filter((line, i) => i === 0 || (!line.includes(PROJECT_ROOT) && !line.includes('node:') && line.includes(':')))
    .join('\n');
  return mapStack(frames, prepared.load.label, prepared.lineMaps);
}

interface CaseVerdict {
  status: CaseStatus;
  reason: string;
  details: string;
  diagnosis?: Diagnosis;
}

/** A recognised mistake leads the reason, the line every report shows; otherwise how far off the output is joins the details. */
function withExplanation(verdict: CaseVerdict, { diagnosis, note }: Explanation): CaseVerdict {
  if (diagnosis) return { ...verdict, reason: `${diagnosis.message} — ${verdict.reason}`, diagnosis };
  return note ? { ...verdict, details: [verdict.details, note].filter(Boolean).join('\n') } : verdict;
}

function fromOutcome(outcome: SessionOutcome, graded: GradedCase, fixture: LoadedFixture, timeoutMs: number, prepared: PreparedSubmission): CaseVerdict {
  const during = outcome.duringLoad ? ' while loading the submission' : '';
  switch (outcome.kind) {
    case 'timeout':
      return { status: 'timeout', reason: `did not finish within the time limit (an endless loop, or far too slow)${during}: limit ${timeoutMs / 1000} s`, details: '' };
    case 'crashed':
      return { status: 'crashed', reason: `the process running the submission died${during}: it ${outcome.how} (process.exit, out of memory?)`, details: '' };
    case 'load_failed':
    case 'threw': {
      const { error } = outcome;
      const prefix = outcome.kind === 'load_failed' ? 'the submission failed to load: ' : '';
      // A stub's message says it all ("softmax is not implemented yet: edit student/index.ts").
      if (error.notImplemented) return { status: 'not_implemented', reason: `${prefix}${error.message}`, details: studentStack(error, prepared) };
      const memory = OUT_OF_MEMORY.test(error.message) ? 'memory limit exceeded: ' : '';
      const verdict: CaseVerdict = { status: 'error', reason: `${prefix}${memory}${error.name}: ${error.message}`, details: studentStack(error, prepared) };
      if (outcome.kind === 'load_failed' || outcome.duringLoad) return verdict;
      return withExplanation(verdict, explain(graded, fixture, { kind: 'threw', name: error.name, message: error.message }));
    }
    case 'value': {
      let output;
      try {
        output = readResult(graded.fn, outcome.value, fixture.inputs.mask);
      } catch (err) {
        if (!(err instanceof ResultError)) throw err;
        const unreadable = { kind: 'unreadable', name: err.name, message: err.message } as const;
        return withExplanation({ status: 'error', reason: err.message, details: '' }, explain(graded, fixture, unreadable));
      }
      const verdict = evaluateCase(graded, output, fixture);
      if (verdict.passed) return { status: 'passed', reason: '', details: '' };
      const [first, ...rest] = verdict.message.split('\n');
      return withExplanation({ status: 'failed', reason: first, details: rest.join('\n') }, explain(graded, fixture, { kind: 'output', output }));
    }
  }
}

function caseResult(graded: GradedCase, verdict: CaseVerdict, output = '', durationMs = 0): CaseResult {
  const { status, reason, details, diagnosis } = verdict;
  return {
    name: graded.name, fn: graded.fn, hidden: graded.hidden, maxPoints: graded.points,
    points: status === 'passed' ? graded.points : 0, status, reason, ...(diagnosis && { diagnosis }), details, output, durationMs,
  };
}

/** A result for a submission that was not run: every case gets the same status and reason. */
export function withoutRunning(name: string, cases: readonly GradedCase[], status: CaseStatus, reason: string, feedback: string[]): SubmissionResult {
  const results = cases.map((c) => caseResult(c, { status, reason, details: '' }));
  return { name, status: status === 'refused' ? 'graded' : 'error', feedback, cases: results, executionTimeMs: 0, ...totals(results) };
}

export async function gradeSubmission(dir: string, name: string, options: GradeOptions): Promise<SubmissionResult> {
  const started = Date.now();
  const located = locateSubmission(dir);
  if ('problem' in located) return withoutRunning(name, options.cases, 'error', located.problem, [located.problem]);
  const session = new ChildSession(options);
  session.warmUp();
  let prepared: PreparedSubmission;
  try {
    prepared = prepareSubmission(located.root, located.entry, path.basename(located.root));
  } catch (err) {
    session.kill();
    const problem = `the submission could not be read: ${(err as Error).message}`;
    return withoutRunning(name, options.cases, 'error', problem, [problem]);
  }
  const feedback = prepared.syntaxErrors.map((e) => `syntax: ${e}`);
  if (prepared.refused.length) {
    session.kill();
    return withoutRunning(name, options.cases, 'refused', prepared.refused[0], [...feedback, ...prepared.refused]);
  }
  session.setSubmission(prepared.load);
  const results: CaseResult[] = [];
  let loadFailure: CaseVerdict | undefined;
  try {
    for (const graded of options.cases) {
      if (loadFailure) {
        results.push(caseResult(graded, loadFailure));
        continue;
      }
      const fixture = options.fixtures.get(graded.fixture)!;
      const t0 = Date.now();
      const outcome = await session.call(graded.fn, { params: fixture.params, inputs: fixture.inputs });
      const verdict = fromOutcome(outcome, graded, fixture, options.timeoutMs, prepared);
      // A submission that cannot load fails the same way every time: say so once per case, run no more.
      if (outcome.duringLoad) loadFailure = verdict;
      const printed = [outcome.kind === 'value' || outcome.kind === 'threw' ? outcome.output : '', session.takeOutput()];
      const output = printed.filter(Boolean).join('\n');
      results.push(caseResult(graded, verdict, output, Date.now() - t0));
    }
    const result: SubmissionResult = {
      name, status: 'graded', feedback, cases: results, executionTimeMs: Date.now() - started, ...totals(results),
    };
    // Every verdict is in before the first probe: a probe that hangs or kills the child changes none.
    if (options.heatmaps && !loadFailure) {
      result.heatmaps = await probeAttention(session, options.cases, options.fixtures, results);
    }
    return result;
  } finally {
    session.kill();
  }
}
