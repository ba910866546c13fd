/**
 * `npm run typecheck`: the student's code checked as the grader checks it, by the grader's own
 * check (check.ts: the same program, rules and words), over the files the grader loads (the entry
 * and what it imports), against the declarations they import (lib/tensor.ts, lib/errors.ts) and
 * TypeScript's and Node's. lib/ itself is not checked here: it is the harness's, checked by the
 * instructor's `npm run typecheck:project`.
 *
 * Each answer is kept in node_modules/.cache/typecheck/ (ignored by git, never shipped, emptied by
 * `npm ci`), named by a hash of the files and of everything else the answer depends on
 * (typeCheckSalt: TypeScript, the compiler options, the declaration packages, lib/). A second run
 * over the same code reads the answer without building a program; a changed file, a changed lib/
 * or another TypeScript makes another name, so a kept answer is exactly what a fresh check would
 * give. TypeScript's own incremental build would not do better after an edit: what a check of
 * student/ costs is parsing and binding Node's declarations, which it redoes on every run.
 */
import path from 'node:path';
import { WorkCache } from '../workCache';
import { takeSubmission } from '../intake/intake';
import { PROJECT_ROOT } from '../paths';
import { typeErrors } from './check';
import { checkedSubmission, isErrors, typeCheckSalt } from './run';

export interface StudentCheck {
  /** How the folder is named in the errors' places: `student`. */
  label: string;
  /** Every error, each `student/index.ts:40:26: error TS2322: …`, as the grader's note lists them. */
  errors: string[];
  /** What the intake says of the folder (files the grader ignores). */
  notes: string[];
  /** Whether the answer was kept from an earlier run over the same code. */
  cached: boolean;
}

/** node_modules/.cache/typecheck/ (WorkCache adds `.cache/<kind>`). */
export const STUDENT_CHECK_CACHE = { root: path.join(PROJECT_ROOT, 'node_modules'), kind: 'typecheck' };

/**
 * Type errors of the submission in `folder` (student/ by default), every one of them. Throws the
 * intake's IntakeError when the folder cannot be graded as it is (no index.ts, a link…).
 */
export function checkStudent(folder = path.join(PROJECT_ROOT, 'student'), cacheRoot = STUDENT_CHECK_CACHE.root): StudentCheck {
  const submission = takeSubmission(folder);
  const checked = checkedSubmission(submission.label, submission);
  const cache = new WorkCache(cacheRoot, STUDENT_CHECK_CACHE.kind, typeCheckSalt());
  const base = { label: submission.label, notes: submission.notes };
  const kept = cache.get(checked, isErrors);
  if (kept) return { ...base, errors: kept, cached: true };
  const errors = typeErrors([checked], false, Infinity).get(checked.name) ?? [];
  cache.set(checked, errors);
  cache.prune();
  return { ...base, errors, cached: false };
}
