/**
 * The words every report shares: points without float noise, and the summary of the statuses that
 * are neither passed nor failed.
 */
import type { CaseStatus } from '../grading/result';

/** Points as every report prints them: quarters and halves, without the noise of float sums. */
export function formatPoints(x: number): string {
  return String(Math.round(x * 1e6) / 1e6);
}

// In CaseStatus order. Passed and failed are the ordinary verdicts and go unmentioned.
const UNUSUAL: readonly CaseStatus[] = ['not_implemented', 'error', 'timeout', 'crashed', 'refused'];

/** "2 timeout, 1 crashed": the statuses that are neither passed nor failed; '' when there are none. */
export function statusSummary(statuses: readonly CaseStatus[]): string {
  return UNUSUAL.map((s) => [s, statuses.filter((t) => t === s).length] as const)
    .filter(([, count]) => count > 0)
    .map(([s, count]) => `${count} ${s}`)
    .join(', ');
}
