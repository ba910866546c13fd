/**
 * A batch's summary covers every submission in it, graded in this run or kept from an earlier one:
 * a kept result is read back from its `<stem>.json`.
 */
import type { GradescopeResults } from '../report/gradescope';
import type { SummaryEntry } from '../report/terminal';

export function summaryEntry(name: string, results: GradescopeResults): SummaryEntry {
  return {
    name,
    score: results.score,
    maxScore: results.extra_data.max_score,
    status: results.extra_data.submission_status,
    cases: Object.values(results.extra_data.cases).map((status) => ({ status })),
  };
}
