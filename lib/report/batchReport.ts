/**
 * The batch as one page, `<out>/report.html`: how the scores spread, how often each test passed,
 * which known mistakes came up most, and a link to every submission's own page. It is built from
 * the `<name>.json` files alone, so a resumed batch reports on the submissions it kept as well.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MISTAKES } from '../diagnosis/catalogue';
import type { GradedCase } from '../../tests/cases';
import { compareNames, rowFromGradescope } from './csv';
import { formatPoints } from './words';
import { histogramSvg, rateBarsSvg, type Bin } from './charts';
import type { GradescopeResults } from './gradescope';
import { escapeHtml, fileHref, htmlPage } from './html';

export const REPORT_FILE = 'report.html';
/** The batch's own record (lib/batch/record.ts), named here so that no submission's results take its name. */
export const RECORD_FILE = 'batch.json';

/** The folder of a batch's output that holds one result and one page per submission. */
export const SUBMISSIONS_DIR = 'submissions';

/**
 * A submission's name as a file name that no other name can share: every character but a–z, 0–9,
 * `-` and `_` percent-encoded (UTF-8, upper-case hex). Injective, and still injective on a file
 * system that ignores case (`Alice` is `%41lice`, `alice` stays `alice`); `.` is encoded too, so no
 * name is `.`, `..` or ends in a suffix of ours.
 */
export function fileStem(name: string): string {
  return Array.from(Buffer.from(name, 'utf8'), (byte) => {
    const c = String.fromCharCode(byte);
    return /[a-z0-9_-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
}

/**
 * A submission's page in a batch folder, relative to it: `submissions/<stem>.html`. The batch's own
 * files (grades.csv, report.html, batch.json) sit beside that folder, so no name reaches them.
 */
export function pageFile(name: string): string {
  return `${SUBMISSIONS_DIR}/${fileStem(name)}.html`;
}

/** A submission's results.json in a batch folder, relative to it: `submissions/<stem>.json`. */
export function resultsFile(name: string): string {
  return `${SUBMISSIONS_DIR}/${fileStem(name)}.json`;
}

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
  const bins = Array.from({ length: count }, (_, i) => ({ label: `${i}–${formatPoints(Math.min(i + 1, max))}`, count: 0 }));
  for (const s of scores) bins[Math.min(count - 1, Math.max(0, Math.floor(s)))].count++;
  return bins;
}

function mistakeTable(graded: readonly { name: string; results: GradescopeResults }[]): string {
  const seen = new Map<string, { submissions: Set<string>; cases: number }>();
  for (const { name, results } of graded) {
    for (const ids of Object.values(results.extra_data.diagnoses ?? {})) {
      for (const id of ids.split('|')) {
        const entry = seen.get(id) ?? { submissions: new Set<string>(), cases: 0 };
        entry.submissions.add(name);
        entry.cases++;
        seen.set(id, entry);
      }
    }
  }
  if (seen.size === 0) return '<p class="muted">No failure matched a known mistake.</p>';
  const rows = [...seen.entries()]
    .sort(([a, x], [b, y]) => y.submissions.size - x.submissions.size || y.cases - x.cases || (a < b ? -1 : 1))
    .map(([id, { submissions, cases }]) => {
      const mistake = MISTAKES.find((m) => m.id === id);
      return `<tr><td><span class="mistake">${escapeHtml(id)}</span></td><td class="num">${submissions.size}</td>` +
        `<td class="num">${cases}</td><td>${escapeHtml(mistake?.message ?? '')}</td></tr>`;
    });
  return [
    '<table class="mistakes"><thead><tr><th>mistake</th><th class="num">submissions</th><th class="num">failed tests</th>',
    '<th>what it is</th></tr></thead>',
    `<tbody>${rows.join('\n')}</tbody></table>`,
    '<p class="note">A test whose output fits several mistakes counts for each.</p>',
  ].join('\n');
}

function submissionTable(entries: readonly BatchEntry[]): string {
  const rows = [...entries].sort((a, b) => compareNames(a.name, b.name)).map(({ name, results, page }) => {
    const shown = escapeHtml(name);
    const link = page ? `<a class="submission" href="${fileHref(page)}">${shown}</a>` : shown;
    if (!results) return `<tr><td>${link}</td><td class="num">–</td><td class="muted">no result file: grade it again</td></tr>`;
    const row = rowFromGradescope(name, results);
    const noPage = page ? '' : ' <span class="muted">(no page: graded before pages were written; --force regrades)</span>';
    return `<tr><td>${link}</td><td class="num">${formatPoints(row.total)} / ${formatPoints(row.max)}</td>` +
      `<td>${escapeHtml(row.status)}${noPage}</td></tr>`;
  });
  return `<table class="submissions"><thead><tr><th>submission</th><th class="num">score</th><th>status</th></tr></thead>\n` +
    `<tbody>${rows.join('\n')}</tbody></table>`;
}

export function batchReportHtml(entries: readonly BatchEntry[], cases: readonly GradedCase[]): string {
  const graded = entries.flatMap((e) => (e.results ? [{ name: e.name, results: e.results }] : []));
  const scores = graded.map((g) => g.results.score);
  const max = Math.max(cases.reduce((s, c) => s + c.points, 0), ...graded.map((g) => g.results.extra_data.max_score));
  const body = [`<h1>Attention assignment: ${entries.length} submissions</h1>`];
  body.push(graded.length
    ? `<p>Scores out of ${formatPoints(max)}: mean <strong>${formatPoints(Math.round(mean(scores) * 100) / 100)}</strong>, ` +
      `min ${formatPoints(Math.min(...scores))}, max ${formatPoints(Math.max(...scores))}` +
      `${graded.length < entries.length ? `; ${entries.length - graded.length} without a readable result` : ''}.</p>`
    : '<p>No submission has a result yet.</p>');
  body.push('<h2>Scores</h2>',
    histogramSvg(scoreBins(scores, max), { title: 'score histogram', xLabel: 'score (points)', yLabel: 'submissions' }));
  const rates = cases.map((c) => ({
    label: c.name,
    passed: graded.filter((g) => g.results.extra_data.cases[c.name] === 'passed').length,
    total: graded.filter((g) => c.name in g.results.extra_data.cases).length,
  }));
  body.push('<h2>Pass rate per test</h2>', rateBarsSvg(rates, { title: 'pass rate per test' }));
  body.push('<h2>Most common mistakes</h2>', mistakeTable(graded));
  body.push('<h2>Submissions</h2>', submissionTable(entries));
  return htmlPage(`Batch report: ${entries.length} submissions`, body.join('\n'));
}
