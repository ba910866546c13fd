/**
 * The one serializer that knows Gradescope: SubmissionResult → results.json.
 *
 * Field names, enums and meanings follow Gradescope's "Autograder Specifications", section "Output
 * format" (https://gradescope-autograders.readthedocs.io/en/latest/specs/, source
 * gradescope/autograder_samples docs/specs.md), and its later additions "Test case status"
 * (status: passed | failed) and "Output String Formatting" (output_format, test_output_format:
 * text | html | simple_format | md | ansi). The spec has no top-level max_score (Gradescope takes the
 * maximum from the assignment's settings); our contract (shared/CONTRACT.md) promises one, so it is
 * written and Gradescope ignores it. extra_data, which the spec sets aside for "extra data to be
 * stored", carries it too with our own statuses, so a gradebook row can be rebuilt from the file. lib/report/gradescope.schema.json is the same spec as a JSON Schema.
 */
import type { Provenance } from '../model/provenance';
import type { CaseResult, CaseStatus, SubmissionResult } from '../model/result';
import type { ContainmentReport } from '../model/containmentReport';
import type { LateOutcome } from '../late/policy';
import { formatPoints, statusSummary } from './words';

export type GradescopeStatus = 'passed' | 'failed';
export type GradescopeVisibility = 'hidden' | 'after_due_date' | 'after_published' | 'visible';
export type GradescopeFormat = 'text' | 'html' | 'simple_format' | 'md' | 'ansi';

export interface GradescopeTest {
  name: string;
  /** Gradescope orders tests by this; the spec gives it as a string ("1.1"). */
  number: string;
  score: number;
  max_score: number;
  status: GradescopeStatus;
  output: string;
  /** The graded function, so Gradescope can group the tests of one function. */
  tags: string[];
  visibility: GradescopeVisibility;
}

/** What a later run needs to rebuild a gradebook row and the batch report from this file alone (see rowFromGradescope). */
export interface GradescopeExtraData {
  submission_status: SubmissionResult['status'];
  max_score: number;
  /**
   * Why a submission that could not run could not (its first note), for its gradebook row. The
   * notes themselves are in `output`, once: results written before held them here as well.
   */
  reason?: string;
  feedback?: string[];
  cases: Record<string, CaseStatus>;
  /** Case name → the id of the known mistake it showed (ids joined by '|' when several fit); only diagnosed cases. */
  diagnoses: Record<string, string>;
  /** What a batch graded it with (lib/batch/provenance.ts makes it), so a rerun knows whether to keep it. */
  graded_with?: Provenance;
  /** The containment the code ran under on the grading machine: its setting, the layers in force and those missing. */
  containment?: ContainmentReport;
  /** The git commit graded, when the batch's folder came from npm run fetch-submissions. */
  commit?: string;
  /** Cases whose points came by --carry-forward (right given the student's own attention). */
  carried?: string[];
  /** What a late policy took: `score` is the tests' points (`late.before`) less `late.penalty`. */
  late?: LateOutcome;
  /** The ids of the assignment's parts graded, when it has optional ones. */
  parts?: string[];
}

export interface GradescopeResults {
  score: number;
  /** Not in Gradescope's spec; promised by our contract. */
  max_score: number;
  /** Seconds, as the spec asks. */
  execution_time: number;
  output: string;
  output_format: GradescopeFormat;
  test_output_format: GradescopeFormat;
  tests: GradescopeTest[];
  extra_data: GradescopeExtraData;
}

// Student code prints what it likes and error messages quote it: "text" shows it as written, where
// "html" or "md" would let a submission put markup into its own results page.
const FORMAT: GradescopeFormat = 'text';

/** Our status in words, first on each test's output: Gradescope itself only knows passed/failed. */
export const STATUS_WORDS: Record<CaseStatus, string> = {
  passed: 'Passed',
  failed: 'Failed',
  not_implemented: 'Not implemented yet',
  error: 'Error',
  timeout: 'Timed out',
  crashed: 'Crashed',
  refused: 'Not run',
};

export function toGradescope(result: SubmissionResult): GradescopeResults {
  return {
    score: result.score,
    max_score: result.maxScore,
    execution_time: Math.round(result.executionTimeMs / 10) / 100,
    output: submissionOutput(result),
    output_format: FORMAT,
    test_output_format: FORMAT,
    tests: result.cases.map((c, i) => ({
      name: c.name,
      number: String(i + 1),
      score: c.points,
      max_score: c.maxPoints,
      // Gradescope knows two verdicts; ours (timeout, crashed, …) opens the test's output instead.
      status: c.status === 'passed' ? 'passed' : 'failed',
      output: caseOutput(c),
      tags: [c.fn],
      // Hidden cases use instructor-only fixtures: students see them once grades are published.
      visibility: c.hidden ? 'after_published' : 'visible',
    })),
    extra_data: {
      submission_status: result.status,
      max_score: result.maxScore,
      ...(result.status === 'error' ? { reason: result.feedback.find((f) => f.trim() !== '')?.trim().split(/\r\n|\r|\n/)[0] ?? '' } : {}),
      cases: Object.fromEntries(result.cases.map((c) => [c.name, c.status])),
      diagnoses: Object.fromEntries(result.cases.flatMap((c) => (c.diagnosis ? [[c.name, c.diagnosis.mistake]] : []))),
      ...(result.cases.some((c) => c.carried) ? { carried: result.cases.filter((c) => c.carried).map((c) => c.name) } : {}),
      ...(result.containment ? { containment: result.containment } : {}),
      ...(result.late ? { late: result.late } : {}),
      ...(result.parts ? { parts: result.parts } : {}),
    },
  };
}

function submissionOutput(result: SubmissionResult): string {
  let headline: string;
  if (result.status === 'error') {
    headline = 'Your submission could not be run, so no test was graded.';
  } else if (result.cases.some((c) => c.hidden)) {
    // The top-level output is shown before grades are published: it speaks of the visible tests
    // only, so no hidden test's result, points or count shows through it.
    const visible = result.cases.filter((c) => !c.hidden);
    const points = visible.reduce((sum, c) => sum + c.points, 0);
    const max = visible.reduce((sum, c) => sum + c.maxPoints, 0);
    const passed = visible.filter((c) => c.status === 'passed').length;
    const unusual = statusSummary(visible.map((c) => c.status));
    headline =
      `Visible tests: ${formatPoints(points)}/${formatPoints(max)} points, ` +
      `${passed} of ${visible.length} passed${unusual ? ` (${unusual})` : ''}. More tests are graded and shown once grades are published.`;
  } else {
    const passed = result.cases.filter((c) => c.status === 'passed').length;
    const unusual = statusSummary(result.cases.map((c) => c.status));
    headline =
      `Score ${formatPoints(result.score)}/${formatPoints(result.maxScore)}: ` +
      `${passed} of ${result.cases.length} tests passed${unusual ? ` (${unusual})` : ''}.`;
  }
  const late = result.late ? [`Late policy: ${result.late.note}; score ${formatPoints(result.score)}/${formatPoints(result.maxScore)} after it.`] : [];
  return [headline, ...late, ...result.feedback].join('\n');
}

/**
 * The status word, then the reason, unless the reason already starts with it, in any case ("Error:
 * oops", not "Error: Error: oops"; "Not run: the submission could not run…", not "Not run: not run: …").
 */
function headlineOf(c: CaseResult): string {
  const word = STATUS_WORDS[c.status];
  if (!c.reason) return word;
  return c.reason.toLowerCase().startsWith(`${word.toLowerCase()}: `) ? `${word}${c.reason.slice(word.length)}` : `${word}: ${c.reason}`;
}

function caseOutput(c: CaseResult): string {
  const parts = [headlineOf(c)];
  if (c.details) parts.push(c.details);
  if (c.output) parts.push(`What your code printed:\n${c.output}`);
  return parts.join('\n\n');
}
