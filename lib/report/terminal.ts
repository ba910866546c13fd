/**
 * What `npm run grade` prints: a table of tests, a batch summary, a finished submission's line
 * (a batch's progress is progress.ts).
 *
 * Reasons, feedback and names carry student text, and this output lands in terminals and CI logs:
 * control characters (a submission's own ANSI codes, a \r that rewrites the line) are dropped and
 * workflow commands are broken (see github.ts) before any of it is printed.
 */
import type { CaseResult, CaseStatus, SubmissionResult } from '../model/result';
import { formatPoints } from './words';
import { POINT_DECIMALS } from './points';
import { oneLine, printableLines } from '../text/sanitise';

/** Table lines fit a 100-column terminal. */
const LINE_WIDTH = 100;
/**
 * A reason that does not fit beside its test goes below it, indented and wrapped, never cut: its
 * end is often the fix ("… divide the scores by √d_k before the softmax").
 */
const REASON_INDENT = '    ';
/** --verbose: the stack and what the submission printed, one level further in. */
const DETAIL_INDENT = '      ';

const COLOR: Record<CaseStatus, number> = {
  passed: 32,
  failed: 31,
  error: 31,
  crashed: 31,
  timeout: 31,
  refused: 31,
  not_implemented: 33,
};

const paint = (text: string, code: number, on: boolean): string => (on ? `\x1b[${code}m${text}\x1b[39m` : text);


const pointsOf = (points: number, max: number): string => `${formatPoints(points)}/${formatPoints(max)}`;

/**
 * `text` in lines of at most `width` characters (code points), broken at spaces; a word longer
 * than a line (a path, a long number list) is split where the line ends.
 */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line: string[] = [];
  for (const word of text.split(' ').filter((w) => w !== '')) {
    const chars = Array.from(word);
    if (line.length > 0 && line.length + 1 + chars.length <= width) {
      line.push(' ', ...chars);
      continue;
    }
    if (line.length > 0) lines.push(line.join(''));
    line = [];
    for (let at = 0; at < chars.length; at += width) {
      const piece = chars.slice(at, at + width);
      if (piece.length === width && at + width < chars.length) lines.push(piece.join(''));
      else line = piece;
    }
  }
  if (line.length > 0) lines.push(line.join(''));
  return lines;
}

/** --verbose: a labelled block of student text (a stack, printed output), its line breaks kept. */
function detailBlock(label: string, text: string): string[] {
  const lines = printableLines(text).trimEnd().split('\n');
  if (lines.every((l) => l.trim() === '')) return [];
  // A line keeps its own indent (a stack frame's "    at"), on every piece it is wrapped into.
  const wrapped = lines.flatMap((l) => {
    const lead = DETAIL_INDENT + (/^ */.exec(l)![0]).slice(0, 20);
    const pieces = wrap(l, LINE_WIDTH - lead.length);
    return pieces.length > 0 ? pieces.map((piece) => lead + piece) : [''];
  });
  return [`${REASON_INDENT}${label}`, ...wrapped];
}

export interface TableOptions {
  color: boolean;
  /** Also each test's details (every failing check, the student's stack) and what the submission printed. */
  verbose?: boolean;
}

export function formatTable(result: SubmissionResult, opts: TableOptions): string {
  const lines: string[] = [];
  const notes = result.feedback.flatMap((f) => f.split(/\r\n|\r|\n/)).map(oneLine).filter((l) => l !== '');
  if (result.status === 'error') notes.unshift('The submission could not be run, so no test was graded.');
  if (notes.length > 0) lines.push(...notes, '');

  const nameWidth = Math.max(0, ...result.cases.map((c) => c.name.length));
  const pointsWidth = Math.max(0, ...result.cases.map((c) => pointsOf(c.points, c.maxPoints).length));
  const statusWidth = Math.max(0, ...result.cases.map((c) => c.status.length));
  for (const c of result.cases) {
    // Padding stays outside the colour codes: they take no columns on screen but count as characters.
    const status = paint(c.status, COLOR[c.status], opts.color);
    const head = [c.name.padEnd(nameWidth), pointsOf(c.points, c.maxPoints).padEnd(pointsWidth), status].join('  ');
    const reason = oneLine(c.reason);
    const besideAt = nameWidth + pointsWidth + statusWidth + 6;
    if (reason === '') lines.push(head);
    else if (besideAt + Array.from(reason).length <= LINE_WIDTH) {
      lines.push(`${head}${' '.repeat(statusWidth - c.status.length)}  ${reason}`);
    } else lines.push(head, ...wrap(reason, LINE_WIDTH - REASON_INDENT.length).map((l) => REASON_INDENT + l));
    if (opts.verbose) lines.push(...detailBlock('details:', c.details), ...detailBlock('printed:', c.output));
  }
  lines.push(`Total: ${pointsOf(result.score, result.maxScore)}`);
  return lines.join('\n');
}

const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
/** A batch's points, as its gradebook shows them (points.ts). */
const shown = (x: number): string => formatPoints(x, POINT_DECIMALS);

/** What a batch summary reads of a result: a result graded now, or one rebuilt from its `<name>.json` (a kept one). */
export type SummaryEntry = Pick<SubmissionResult, 'name' | 'score' | 'maxScore' | 'status'> & { cases: readonly Pick<CaseResult, 'status'>[] };

/** For a batch: how the scores spread and how many submissions met each kind of trouble. */
export function formatBatchSummary(results: readonly SummaryEntry[]): string {
  if (results.length === 0) return 'No submissions graded.';
  const scores = results.map((r) => r.score);
  const max = Math.max(...results.map((r) => r.maxScore));
  const withStatus = (s: CaseStatus): number => results.filter((r) => r.cases.some((c) => c.status === s)).length;
  const errored = results.filter((r) => r.status === 'error');
  const lines = [
    `Submissions: ${results.length}`,
    `Score (out of ${shown(max)}): mean ${shown(mean(scores))}, min ${shown(Math.min(...scores))}, ` +
      `max ${shown(Math.max(...scores))}`,
    `Submissions with a test that timed out: ${withStatus('timeout')}, crashed: ${withStatus('crashed')}, ` +
      `ended in an error: ${withStatus('error')}, was refused: ${withStatus('refused')}`,
    `Could not be graded at all: ${errored.length}`,
  ];
  // Names let the instructor go and look; the mean above counts these submissions as 0.
  if (errored.length > 0) lines[lines.length - 1] += ` (${errored.map((r) => oneLine(r.name)).join(', ')})`;
  return lines.join('\n');
}

/** One line per finished submission of a batch when the output is not a terminal (a CI log): its name and points, as its gradebook shows them. */
export function doneLine(result: SubmissionResult): string {
  const why = result.status === 'error' ? ` (error: ${oneLine(result.feedback[0] ?? '')})` : '';
  return `${oneLine(result.name)}: ${shown(result.score)}/${shown(result.maxScore)}${why}`;
}
