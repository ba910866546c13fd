/**
 * The batch as one page, `<out>/report.html`: how the scores spread (mean, median, quartiles, the
 * count at full marks, a histogram), who failed what (a submission × test grid, courseGrid.ts),
 * every cause of a lost point with the submissions that have it (causes.ts), how often each
 * test passed, and a link to every submission's own page. It is built from
 * the `<name>.json` files alone, so a resumed batch reports on the submissions it kept as well.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { GradedCase } from '../assignment/cases';
import { compareNames } from './csv';
import type { CauseCount, ReportTerms } from './causes';
import { GRID_HTML, GRID_SCRIPT, GRID_STYLE, gridData } from './courseGrid';
import { formatPoints } from './words';
import { POINT_DECIMALS, toUnits } from './points';
import { histogramSvg, rateBarsSvg, type Bin } from './charts';
import type { GradescopeResults } from './gradescope';
import { escapeHtml, fileHref, htmlPage } from './html';
import { pageFile, resultsFile } from './layout';

export const REPORT_FILE = 'report.html';
// Where each submission's files are (readable, bounded, collision-free stems): lib/report/layout.ts.
export { RECORD_FILE, SUBMISSIONS_DIR, fileStem, pageFile, resultsFile } from './layout';

export interface BatchEntry {
  name: string;
  /** The submission's results.json; absent when it is missing or unreadable. */
  results?: GradescopeResults;
  /** Its page's file name, when the page exists. */
  page?: string;
}

export function readBatchEntries(outDir: string, names: readonly string[]): BatchEntry[] {
  return names.map((name) => {
    let results: GradescopeResults | undefined;
    try {
      results = JSON.parse(fs.readFileSync(path.join(outDir, resultsFile(name)), 'utf8')) as GradescopeResults;
      if (typeof results?.extra_data?.cases !== 'object' || results.extra_data.cases === null) results = undefined;
    } catch {
      results = undefined;
    }
    const page = fs.existsSync(path.join(outDir, pageFile(name))) ? pageFile(name) : undefined;
    return { name, results, page };
  });
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** One bin per point: [0, 1), [1, 2), … with the maximum in the last. */
export function scoreBins(scores: readonly number[], max: number): Bin[] {
  const count = Math.max(1, Math.ceil(max));
  const bins = Array.from({ length: count }, (_, i) => ({ label: `${i}–${formatPoints(Math.min(i + 1, max), POINT_DECIMALS)}`, count: 0 }));
  for (const s of scores) bins[Math.min(count - 1, Math.max(0, Math.floor(s)))].count++;
  return bins;
}

/**
 * Every cause in the batch, zero-point ones included (a syntax error, a refused import…), most
 * submissions first: the grid's cause filter lists them in the same order with the same counts.
 */
function causeTable(causes: readonly CauseCount[]): string {
  if (causes.length === 0) return '<p class="muted">Every test passed.</p>';
  return [
    '<table class="mistakes"><thead><tr><th>cause</th><th class="num">submissions</th><th class="num">tests</th>',
    '<th>what it is, and who</th></tr></thead><tbody>',
    ...causes.map(({ id, words, submissions, tests, knockOn }) => {
      const names = [...submissions].sort(compareNames).map(escapeHtml).join(', ');
      const note = knockOn ? ' <span class="note">(a knock-on: these tests fail because the submission\'s own attention does; that cause has its own row)</span>' : '';
      return `<tr><td class="cause"><span class="mistake">${escapeHtml(id)}</span></td><td class="num">${submissions.length}</td>`
        + `<td class="num">${tests}</td><td>${escapeHtml(words)}${note}<details><summary>${submissions.length} submission(s)</summary>${names}</details></td></tr>`;
    }),
    '</tbody></table>',
    '<p class="note">Each test that did not pass counts for its cause: the known mistake its diagnosis confirmed, or else what its status says. A test whose output fits several mistakes counts for each.</p>',
  ].join('\n');
}

/** Every submission's own page, as plain links (the grid draws its links by script). */
function pageList(entries: readonly BatchEntry[]): string {
  const items = [...entries].sort((a, b) => compareNames(a.name, b.name)).map(({ name, page, results }) => {
    if (!results) return `<li>${escapeHtml(name)} <span class="muted">(no result file: grade it again)</span></li>`;
    if (!page) return `<li>${escapeHtml(name)} <span class="muted">(no page: graded before pages were written; --force regrades)</span></li>`;
    return `<li><a class="page" href="${fileHref(page)}">${escapeHtml(name)}</a></li>`;
  });
  return `<details><summary>Each submission's own page (${entries.length})</summary><ul class="pages">${items.join('')}</ul></details>`;
}

/** The value below which `share` of the sorted values fall (linear between neighbours). */
export function quantile(sorted: readonly number[], share: number): number {
  if (sorted.length === 0) return NaN;
  const at = share * (sorted.length - 1);
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (at - low);
}

/**
 * How points are shown (points.ts), with a test of the table whose points the precision cannot
 * show, when there is one, as the example.
 */
function precisionNote(cases: readonly GradedCase[], decimals: number): string {
  const odd = cases.find((c) => Math.abs(toUnits(c.points, decimals) - c.points * 10 ** decimals) > 1e-6);
  const example = odd
    ? ` (${escapeHtml(odd.name)}, worth ${formatPoints(odd.points)}, shows ${formatPoints(Math.floor(odd.points * 10 ** decimals) / 10 ** decimals, decimals)} `
      + `or ${formatPoints(Math.ceil(odd.points * 10 ** decimals) / 10 ** decimals, decimals)})`
    : '';
  return `<p class="note">Points are shown to ${decimals} decimals, as in grades.csv and canvas.csv: a score is the exact sum of the tests' points, rounded, `
    + `and each test's points are rounded so that a row's cells add up to it${example}. The results files keep the exact points.</p>`;
}

/** What a late policy did to the batch, in a sentence: how many lost points, how many had no time. */
function lateNote(graded: readonly { name: string; results: GradescopeResults }[]): string | undefined {
  const timed = graded.filter((g) => g.results.extra_data.late);
  if (timed.length === 0) return undefined;
  const policy = timed.map((g) => g.results.extra_data.graded_with?.options.late_policy).find((p) => typeof p === 'string');
  const penalised = timed.filter((g) => g.results.extra_data.late!.penalty > 0);
  const untimed = timed.filter((g) => g.results.extra_data.late!.submitted_at === null);
  const extended = timed.filter((g) => g.results.extra_data.late!.extended);
  return `<p class="note">Late policy${policy ? ` <code>${escapeHtml(String(policy))}</code>` : ''}: ${penalised.length} submission(s) lost points to it `
    + `(the grid's <em>late penalty</em> column; <em>score</em> is <em>points</em> less it)`
    + `${untimed.length ? `; ${untimed.length} had no submission time, so no penalty (${untimed.map((g) => escapeHtml(g.name)).join(', ')})` : ''}`
    + `${extended.length ? `; ${extended.length} had a due time of their own (--extensions): ${extended.map((g) => `${escapeHtml(g.name)} (${escapeHtml(g.results.extra_data.late!.due ?? '')})`).join(', ')}` : ''}.</p>`;
}

export function batchReportHtml(
  entries: readonly BatchEntry[], cases: readonly GradedCase[], terms: ReportTerms, decimals: number = POINT_DECIMALS,
): string {
  const graded = entries.flatMap((e) => (e.results ? [{ name: e.name, page: e.page, results: e.results }] : []));
  const scores = graded.map((g) => g.results.score);
  const sorted = [...scores].sort((a, b) => a - b);
  const max = Math.max(cases.reduce((s, c) => s + c.points, 0), ...graded.map((g) => g.results.extra_data.max_score));
  const round = (x: number) => formatPoints(x, decimals);
  const full = graded.filter((g) => g.results.score >= g.results.extra_data.max_score - 1e-9).length;
  const body = [GRID_STYLE_TAG, `<h1>${escapeHtml(terms.title)}: ${entries.length} submissions</h1>`];
  body.push(graded.length
    ? `<p class="stats">Scores out of ${round(max)}: mean <strong>${round(mean(scores))}</strong>, `
      + `median <strong>${round(quantile(sorted, 0.5))}</strong>, quartiles ${round(quantile(sorted, 0.25))} and ${round(quantile(sorted, 0.75))}, `
      + `min ${round(sorted[0])}, max ${round(sorted[sorted.length - 1])}; <strong>${full}</strong> at full marks`
      + `${graded.length < entries.length ? `; ${entries.length - graded.length} without a readable result` : ''}.</p>`
    : '<p>No submission has a result yet.</p>');
  const carried = graded.filter((g) => g.results.extra_data.carried?.length);
  if (carried.length) {
    body.push(`<p class="note">--carry-forward: ${carried.length} submission(s) earned multi-head points on their own attention `
      + `(${carried.map((g) => escapeHtml(g.name)).join(', ')}); their tests' reasons say so.</p>`);
  }
  body.push('<h2>Scores</h2>',
    histogramSvg(scoreBins(scores, max), { title: 'score histogram', xLabel: 'score (points)', yLabel: 'submissions' }));
  const causes = terms.causes.tally(graded);
  body.push('<h2>Who failed what</h2>', GRID_HTML, `<script type="application/json" id="grid-data">${gridData(graded, cases, terms, causes, decimals)}</script>`);
  body.push(precisionNote(cases, decimals));
  const late = lateNote(graded);
  if (late) body.push(late);
  const missing = entries.filter((e) => !e.results);
  if (missing.length) body.push(`<p class="muted">Without a readable result (grade them again): ${missing.map((e) => escapeHtml(e.name)).join(', ')}.</p>`);
  body.push(pageList(entries));
  body.push('<h2>Causes</h2>', causeTable(causes));
  const rates = cases.map((c) => ({
    label: c.name,
    passed: graded.filter((g) => g.results.extra_data.cases[c.name] === 'passed').length,
    total: graded.filter((g) => c.name in g.results.extra_data.cases).length,
  }));
  body.push('<h2>Pass rate per test</h2>', rateBarsSvg(rates, { title: 'pass rate per test' }));
  return htmlPage(`Batch report: ${entries.length} submissions`, body.join('\n'), GRID_SCRIPT);
}

const GRID_STYLE_TAG = `<style>${GRID_STYLE}table.mistakes td.cause { white-space: nowrap; }
</style>`;
