/**
 * The words every report shares: points without float noise, and the summary of the statuses that
 * are neither passed nor failed.
 */
import type { CaseStatus } from '../model/result';
import { fromUnits, toUnits } from './points';

/**
 * Points as every report prints them, to `decimals` places: by default the case table's own
 * points without the noise of float sums; a gradebook's to POINT_DECIMALS (points.ts).
 */
export function formatPoints(x: number, decimals = 6): string {
  return String(fromUnits(toUnits(x, decimals), decimals));
}

// In CaseStatus order. Passed and failed are the ordinary verdicts and go unmentioned.
const UNUSUAL = ['not_implemented', 'error', 'timeout', 'crashed', 'refused'] as const satisfies readonly CaseStatus[];

/** What each unusual status says of a test, after "3 tests". A wrong answer (NaN included) is failed, not one of these. */
const HAPPENED: Record<(typeof UNUSUAL)[number], string> = {
  not_implemented: 'not implemented',
  error: 'ended in an error',
  timeout: 'timed out',
  crashed: 'crashed',
  refused: 'refused',
};

/** "2 tests timed out, 1 test crashed": the statuses that are neither passed nor failed; '' when there are none. */
export function statusSummary(statuses: readonly CaseStatus[]): string {
  return UNUSUAL.map((s) => [s, statuses.filter((t) => t === s).length] as const)
    .filter(([, count]) => count > 0)
    .map(([s, count]) => `${count} ${count === 1 ? 'test' : 'tests'} ${HAPPENED[s]}`)
    .join(', ');
}
