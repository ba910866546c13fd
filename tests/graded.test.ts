/**
 * The graded suite: one vitest test per visible case of tests/cases.ts, named as in the table.
 * The submission runs through the adapters; the verdict comes from lib/grading/evaluate.ts, the
 * same code the grader uses. One spec file on purpose: vitest loads every spec file even when
 * `-t` skips its tests, and each file costs a worker start (the student loop would double).
 */
import { test } from 'vitest';
import * as adapters from '../adapters';
import { evaluateCase } from '../lib/grading/evaluate';
import { loadFixture } from '../lib/grading/fixtures';
import { invokeCase } from '../lib/grading/invoke';
import { visibleCases } from './cases';

/** A failed check: the message is the whole story, so no harness stack frames are shown. */
class GradeFailure extends Error {
  override name = 'GradeFailure';
  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${message}`;
  }
}

for (const graded of visibleCases()) {
  test(graded.name, async () => {
    // Read inside the test: a -t filter that skips the case skips its file reads too.
    const fixture = loadFixture(graded.fixture);
    const output = await invokeCase(graded.fn, fixture, adapters);
    const verdict = evaluateCase(graded, output, fixture);
    if (!verdict.passed) {
      throw new GradeFailure(`${graded.name} (${graded.points} pt): ${graded.what}\n${verdict.message}`);
    }
  });
}
