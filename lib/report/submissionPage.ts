/**
 * One submission as a page (`npm run grade -- --html FILE`, and each `<name>.html` of a batch): the
 * score table, then for each failed case the assignment draws (its heatmap plug-in) the expected
 * values and the submission's, and their difference, as heatmaps, with the diagnosis beside them.
 * A hidden case's expected values appear only on an instructor's page (`--instructor-view`), which
 * says so at the top; otherwise its heatmap shows the submission's alone. The page speaks of them in
 * the assignment's words (PageWords).
 *
 * Names, reasons, details and printed output are the student's text: all of it is escaped.
 */
import type { GradedCase } from '../assignment/cases';
import type { AttentionHeatmap, CaseResult, SubmissionResult } from '../model/result';
import { formatIndex } from '../format';
import { formatPoints, statusSummary } from './words';
import { difference, heatmapSvg, sharedScale, type ColorScale, type Matrix } from './heatmap';
import { escapeHtml, htmlPage } from './html';

const anchor = (caseName: string) => `heatmaps-${caseName.replace(/[^\w-]/g, '_')}`;

/** The reason without the diagnosis that leads it: the check that refused the output. */
function checkPart(c: CaseResult): string {
  if (!c.diagnosis || !c.reason.startsWith(c.diagnosis.message)) return c.reason;
  return c.reason.slice(c.diagnosis.message.length).replace(/^ — /, '');
}

/** The diagnosis is written out beside the heatmaps when there are some: the table then keeps to one line or two. */
function reasonCell(c: CaseResult, linked: boolean): string {
  const parts: string[] = [];
  if (c.diagnosis) parts.push(c.diagnosis.mistake.split('|').map((id) => `<span class="mistake">${escapeHtml(id)}</span>`).join(''));
  if (linked) parts.push(escapeHtml(checkPart(c)), `<a href="#${anchor(c.name)}">heatmaps and diagnosis</a>`);
  else if (c.reason) parts.push(escapeHtml(c.reason));
  return parts.join(' ');
}

function scoreTable(result: SubmissionResult): string {
  const rows = result.cases.map((c) => [
    '<tr>',
    `<td class="test">${escapeHtml(c.name)}</td>`,
    `<td class="num">${formatPoints(c.points)} / ${formatPoints(c.maxPoints)}</td>`,
    `<td><span class="status ${escapeHtml(c.status)}">${escapeHtml(c.status.replace('_', ' '))}</span></td>`,
    `<td>${reasonCell(c, Boolean(result.heatmaps?.has(c.name)))}</td>`,
    '</tr>',
  ].join(''));
  return [
    '<table class="scores">',
    '<thead><tr><th>test</th><th class="num">points</th><th>status</th><th>reason / diagnosis</th></tr></thead>',
    `<tbody>${rows.join('\n')}</tbody>`,
    '</table>',
  ].join('\n');
}

function headline(result: SubmissionResult): string {
  if (result.status === 'error') return 'The submission could not be run, so no test was graded.';
  const passed = result.cases.filter((c) => c.status === 'passed').length;
  const unusual = statusSummary(result.cases.map((c) => c.status));
  return `Score <strong>${formatPoints(result.score)} / ${formatPoints(result.maxScore)}</strong>: ` +
    `${passed} of ${result.cases.length} tests passed${unusual ? ` (${escapeHtml(unusual)})` : ''}.`;
}

/** What the grader said about the case, beside its heatmaps. */
function aside(c: CaseResult): string {
  const parts = ['<div class="aside">'];
  if (c.diagnosis) {
    parts.push('<h3>Diagnosis</h3>', `<p>${escapeHtml(c.diagnosis.message)}</p>`);
    const check = checkPart(c);
    if (check) parts.push(`<p class="note">${escapeHtml(check)}</p>`);
  } else {
    parts.push('<h3>No known mistake</h3>', `<p>${escapeHtml(c.reason)}</p>`);
  }
  if (c.details) parts.push(`<pre>${escapeHtml(c.details)}</pre>`);
  parts.push('</div>');
  return parts.join('\n');
}

/** Grid width in px: three heatmaps and the diagnosis fit side by side in a 1280 px window. */
const SIZE = 192;

/** How a page speaks of the assignment: its title, and what its heatmaps show (the assignment's words). */
export interface PageWords {
  /** The page's heading before the submission's name, e.g. "Attention assignment". */
  title: string;
  heatmaps?: {
    heading: string;
    /** How the values were had, under the heading. */
    note: string;
    /** What the matrices hold ("probabilities"), and what their rows and columns are ("queries", "keys"). */
    values: string;
    rows: string;
    cols: string;
  };
}

const PLAIN: Required<PageWords>['heatmaps'] = { heading: 'Heatmaps of the failed tests', note: '', values: 'values', rows: 'rows', cols: 'columns' };

function caseSection(c: CaseResult, heatmap: AttentionHeatmap, what: string, words: Required<PageWords>['heatmaps']): string {
  const { expected, actual, allowed } = heatmap;
  const draw = (m: Matrix, title: string, scale: ColorScale) => heatmapSvg(m, { title, scale, size: SIZE, allowed });
  const figures: string[] = [];
  if (expected) figures.push(draw(expected, `expected ${words.values}`, sharedScale(expected, ...(actual ? [actual] : []))));
  if (actual) {
    figures.push(draw(actual, `your ${words.values}`, sharedScale(...(expected ? [expected] : []), actual)));
    if (expected) {
      const diff = difference(actual, expected);
      figures.push(draw(diff.matrix, `yours − expected (max |Δ| ${diff.maxAbs.toPrecision(3)})`, diff.scale));
    }
  } else {
    figures.push(`<div class="missing"><strong>No heatmap of yours:</strong> ${escapeHtml(heatmap.problem ?? 'the probe gave nothing')}.</div>`);
  }
  if (!expected) figures.push('<div class="missing">A hidden test: its expected values are not shown.</div>');
  const shape = expected ?? actual;
  const entry = heatmap.batchIndex.length ? `batch entry ${formatIndex(heatmap.batchIndex)}` : 'the only batch entry';
  const size = shape ? `, ${shape.rows} ${words.rows} × ${shape.cols} ${words.cols}` : '';
  return [
    `<section class="case" id="${anchor(c.name)}">`,
    `<h3>${escapeHtml(c.name)}</h3>`,
    `<p class="muted">${escapeHtml(what)} · ${entry}${size}</p>`,
    `<div class="panels">${figures.join('\n')}\n${aside(c)}</div>`,
    '</section>',
  ].join('\n');
}

const INSTRUCTOR_NOTE =
  "Instructor's view: this page shows the expected values of hidden tests. Do not give it to students; " +
  'grade without --instructor-view for a page they may see.';

/** The page of `result`; `cases` say what each test checks, `words` how the page speaks of the assignment. */
export function submissionPage(result: SubmissionResult, cases: readonly GradedCase[], words: PageWords): string {
  const pictured = words.heatmaps ?? PLAIN;
  const body = [`<h1>${escapeHtml(words.title)}: ${escapeHtml(result.name)}</h1>`];
  if ([...(result.heatmaps?.values() ?? [])].some((h) => h.hidden && h.expected)) body.push(`<p class="warning">${escapeHtml(INSTRUCTOR_NOTE)}</p>`);
  body.push(`<p>${headline(result)}</p>`);
  const notes = result.feedback.filter((f) => f.trim() !== '');
  if (notes.length) body.push(`<pre class="feedback">${escapeHtml(notes.join('\n'))}</pre>`);
  body.push('<h2>Tests</h2>', scoreTable(result));
  if (result.heatmaps?.size) {
    body.push(`<h2>${escapeHtml(pictured.heading)}</h2>`, ...(pictured.note ? [`<p class="note">${escapeHtml(pictured.note)}</p>`] : []));
    for (const c of result.cases.filter((r) => r.status !== 'passed')) {
      const heatmap = result.heatmaps.get(c.name);
      const what = cases.find((g) => g.name === c.name)?.what ?? '';
      if (heatmap) body.push(caseSection(c, heatmap, what, pictured));
    }
  }
  return htmlPage(`${result.name}: ${formatPoints(result.score)}/${formatPoints(result.maxScore)}`, body.join('\n'));
}
