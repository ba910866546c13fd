/**
 * Loads a mutant in this process the way the grader's child loads a submission: transpiled by the
 * grader's own transpileSubmission (lib/sandbox/transpile.ts), then loaded by the child's own
 * loader (lib/sandbox/loadModules.ts) with the harness's tensor and errors modules. Each load is a
 * new module instance: nothing one load keeps reaches the next.
 */
import * as errors from '../../lib/errors';
import { loadModules } from '../../lib/sandbox/loadModules';
import * as tensor from '../../lib/tensor';

const HARNESS: Record<string, unknown> = { tensor, errors };

export function loadSubmission(message: Parameters<typeof loadModules>[0]): Record<string, unknown> {
  return loadModules(message, HARNESS);
}
