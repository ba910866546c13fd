/**
 * Resuming a batch: a result from an earlier run is kept only when it was graded with what this run
 * grades with (options, case table, fixtures) and the submission is the same, byte for byte, as the
 * one it graded. Anything else is regraded, so one folder never mixes gradebooks.
 */
import fs from 'node:fs';
import type { GradescopeResults } from '../report/gradescope';
import { difference, type Provenance } from './provenance';

/** Why a submission is graded in this run rather than kept. */
export type RegradeReason = 'new' | 'unrecorded' | 'other_options' | 'edited' | 'not_readable' | 'other_time' | 'forced';

export const REASON_WORDS: Record<RegradeReason, string> = {
  new: 'not graded before',
  unrecorded: 'graded by a grader that did not record how',
  other_options: 'graded with other options, parts, cases or fixtures',
  edited: 'changed since they were graded',
  not_readable: 'could not be read',
  other_time: 'given another submission or due time',
  forced: 'regraded by --force',
};

export function readResults(file: string): GradescopeResults | undefined {
  try {
    const results = JSON.parse(fs.readFileSync(file, 'utf8')) as GradescopeResults;
    return typeof results?.extra_data?.cases === 'object' && results.extra_data.cases !== null ? results : undefined;
  } catch {
    return undefined; // missing or half-written: grade again
  }
}

/** Undefined when `previous` may be kept; otherwise why not. */
export function regradeReason(
  previous: GradescopeResults | undefined,
  now: Provenance,
  force: boolean,
): RegradeReason | undefined {
  if (force) return 'forced';
  if (!previous) return 'new';
  const recorded = previous.extra_data.graded_with;
  if (!recorded) return 'unrecorded';
  if (difference(now, recorded)) return 'other_options';
  if (now.submission === null) return 'not_readable';
  if (recorded.submission !== now.submission) return 'edited';
  // Under a late policy the times are part of what was graded: a corrected one is a new penalty.
  const same = (recorded.submitted_at ?? null) === (now.submitted_at ?? null) && (recorded.due ?? null) === (now.due ?? null);
  return same ? undefined : 'other_time';
}

/** "regraded 3: 2 changed since they were graded, 1 graded with other options, parts, cases or fixtures". */
export function regradeLine(reasons: ReadonlyMap<string, RegradeReason>): string {
  const counts = new Map<RegradeReason, number>();
  for (const why of reasons.values()) counts.set(why, (counts.get(why) ?? 0) + 1);
  const parts = [...counts].map(([why, n]) => `${n} ${REASON_WORDS[why]}`);
  return `regraded ${reasons.size}: ${parts.join(', ')}`;
}

