/**
 * The graded suite: one vitest test per visible case of tests/cases.ts, named as in the table.
 * The submission runs through the adapters; the verdict comes from lib/grading/evaluate.ts and the
 * diagnosis of a failure from lib/diagnosis, the same code the grader uses. One spec file on
 * purpose: vitest loads every spec file even when `-t` skips its tests, and each file costs a
 * worker start (the student loop would double).
 */
import path from 'node:path';
import { test } from 'vitest';
import * as adapters from '../adapters';
import { explain } from '../lib/diagnosis/diagnose';
import { NotImplementedError, ResultError } from '../lib/errors';
import { evaluateCase } from '../lib/grading/evaluate';
import { loadFixture, type LoadedFixture } from '../lib/grading/fixtures';
import { inProcessContext } from '../lib/grading/inProcess';
import { invokeCase } from '../lib/grading/invoke';
import { readManifest, type Manifest } from '../lib/grading/manifest';
import type { Tensor } from '../lib/tensor';
import { HangError } from '../adapters/withinLimit';
import { notRunAfterHang, PER_TEST_LIMIT_MS } from '../lib/grading/hangWords';
import { visibleCases, type GradedCase, type GradedFunction } from './cases';

/** A failed check: the message is the whole story, so no harness stack frames are shown. */
class GradeFailure extends Error {
  override name = 'GradeFailure';
  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${message}`;
  }
}

// Probes call the submission again, only once a case has failed (lib/diagnosis/probe.ts).
const context = inProcessContext(adapters.probe, adapters);

/**
 * As the grader shows a stack (studentStack in lib/grading/verdict.ts): the message, then only the
 * frames in the submission's own folder; the tensor module's, the adapters' and vitest's are not
 * the student's to read.
 */
function ownFramesOnly(err: unknown): void {
  if (!(err instanceof Error) || Object.isFrozen(err) || typeof err.stack !== 'string') return;
  const folder = path.dirname(adapters.chosenSubmissionFile()) + path.sep;
  const lines = err.stack.split('\n');
  const firstFrame = lines.findIndex((line) => /^\s+at /.test(line));
  if (firstFrame < 0) return;
  const own = lines.slice(firstFrame).filter((line) => line.includes(folder) || line.includes(`file://${folder}`));
  try {
    err.stack = [...lines.slice(0, firstFrame), ...own].join('\n');
  } catch {
    // a stack the student's code made read-only stays as it is
  }
}

/** What the code threw (or the adapter refused, e.g. NaN), with what the diagnosis found appended. */
async function diagnosed(err: unknown, graded: GradedCase, fixture: LoadedFixture): Promise<unknown> {
  // A stub's message says it all; the grader diagnoses no not-implemented case either. A hang is
  // not probed: each probe would meet the same loop.
  if (!(err instanceof Error) || Object.isFrozen(err) || err instanceof NotImplementedError || err instanceof HangError) return err;
  const kind = err instanceof ResultError ? 'unreadable' : 'threw';
  const { note } = await explain(graded, fixture, { kind, name: err.name, message: err.message }, context);
  if (note) err.message += `\n${note}`;
  return err;
}

// Read once, on the first test that runs: every case's fixture is listed in it.
let manifest: Manifest | undefined;
/** Each function that hung, and the test it hung in: as in the grader, its other tests fail at once. */
const hung = new Map<GradedFunction, string>();

for (const graded of visibleCases()) {
  test(graded.name, async () => {
    // Read inside the test: a -t filter that skips the case skips its file reads too.
    const fixture = loadFixture(graded.fixture, { manifest: (manifest ??= readManifest()) });
    const hungIn = hung.get(graded.fn);
    if (hungIn) throw new GradeFailure(notRunAfterHang(graded.fn, PER_TEST_LIMIT_MS, hungIn));
    let output: Tensor;
    try {
      output = await invokeCase(graded.fn, fixture, adapters);
    } catch (err) {
      if (err instanceof HangError && err.fn === graded.fn) hung.set(graded.fn, graded.name);
      // V8 writes the stack when it is first read: after the diagnosis joined the message.
      const explained = await diagnosed(err, graded, fixture);
      ownFramesOnly(explained);
      throw explained;
    }
    const verdict = evaluateCase(graded, output, fixture);
    if (!verdict.passed) {
      // Only a failure probes, or reads the mistakes' outputs (fixture.mistakes() is lazy).
      const { note } = await explain(graded, fixture, { kind: 'output', output }, context);
      throw new GradeFailure(`${graded.name} (${graded.points} pt): ${graded.what}\n${verdict.message}\n${note}`);
    }
  });
}
