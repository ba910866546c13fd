/**
 * Turns the table of graded cases into vitest tests, one per case, named as in the table.
 * The submission runs through the adapters; the verdict comes from lib/grading/evaluate.ts, the
 * same code the grader uses.
 */
import { test } from 'vitest';
import * as adapters from '../adapters';
import { evaluateCase } from '../lib/grading/evaluate';
import { loadFixture } from '../lib/grading/fixtures';
import { invokeCase } from '../lib/grading/invoke';
import { visibleCases, type GradedFunction } from './cases';

/** A failed check: the message is the whole story, so no harness stack frames are shown. */
class GradeFailure extends Error {
  override name = 'GradeFailure';
  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${message}`;
  }
}

export function gradedTests(fn: GradedFunction): void {
  for (const graded of visibleCases(fn)) {
    test(graded.name, async () => {
      // Loaded inside the test: a -t filter that skips the case skips the file reads too.
      const fixture = loadFixture(graded.fixture);
      const output = await invokeCase(graded.fn, fixture, adapters);
      const verdict = evaluateCase(graded, output, fixture);
      if (!verdict.passed) {
        throw new GradeFailure(`${graded.name} (${graded.points} pt): ${graded.what}\n${verdict.message}`);
      }
    });
  }
}
