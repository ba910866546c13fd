/**
 * similarity.html and similarity.csv: the pairs that share the most code, as evidence for a person
 * to read, never as a verdict. The page is one offline file like the other reports (lib/report/
 * html.ts: no script, no fetch, every submission's text escaped): the distribution of every pair's
 * score, groups of three or more, a table of the pairs at or above the threshold (most shared code
 * first), and for each a side-by-side view with the shared fragments marked, each linked to its
 * other side. Both panes share the page's width and scroll on their own, so a long line widens nothing.
 */
import { formatNumber } from '../format';
import { csvCell } from '../report/csv';
import { histogramSvg } from '../report/charts';
import { escapeHtml, htmlPage } from '../report/html';
import type { NotCompared, Tokenised } from './collect';
import { clusters, type Comparison, type PairDetail } from './compare';
import { KGRAM, WINDOW } from './fingerprints';
import { spanOf, type Span } from './tokens';

/** Pairs shown side by side on the page; the CSV lists more. */
export const PAGE_PAIRS = 100;
/** Characters of one submission a pane shows (a solution is a few thousand; the intake allows 4 MiB). */
export const PANE_CHARS = 64 * 1024;
/** Characters of code the page shows in all its panes: past it, pairs are in the table only. */
export const PAGE_CHARS = 8 * 1024 * 1024;
/** Rows of the page's table of pairs at or above the threshold; the CSV has them all. */
export const TABLE_PAIRS = 1000;
/** Pairs in the CSV: every pair at or above the threshold, and the best others up to this many. */
export const CSV_PAIRS = 2000;

const percent = (x: number) => `${Math.round(x * 100)}%`;

/** The score below which `share` of all pairs fall (pairs that share nothing score 0). */
function quantile(comparison: Comparison, share: number): number {
  // Scores are best first: count from the top the pairs above the rank asked for.
  const above = comparison.pairCount - 1 - Math.floor(share * Math.max(0, comparison.pairCount - 1));
  let seen = 0;
  for (const { score, pairs } of comparison.scores) {
    seen += pairs;
    if (seen > above) return score;
  }
  return 0;
}

function distribution(comparison: Comparison, threshold: number): string {
  const bins = Array.from({ length: 10 }, (_, i) => ({ label: `${i * 10}–${i * 10 + 10}%`, count: 0 }));
  let counted = 0;
  let above = 0;
  for (const { score, pairs } of comparison.scores) {
    bins[Math.min(9, Math.floor(score * 10))].count += pairs;
    counted += pairs;
    if (score >= threshold) above += pairs;
  }
  bins[0].count += comparison.pairCount - counted;
  return [
    '<h2>How all pairs compare</h2>',
    `<p>${comparison.pairCount} pairs of ${comparison.submissions.length} submissions. Median score ${percent(quantile(comparison, 0.5))}, `
      + `90th percentile ${percent(quantile(comparison, 0.9))}, 99th percentile ${percent(quantile(comparison, 0.99))}. `
      + `${above} pair(s) at or above the threshold of ${percent(threshold)}: a pair far to the right of the rest stands out; a pair among many is what this exercise gives.</p>`,
    histogramSvg(bins, { title: 'Pair scores', xLabel: 'score (shared fingerprints)', yLabel: 'pairs' }),
  ].join('\n');
}

/** Character offsets of each line start. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The text with each fragment's characters wrapped in a mark linking to the same fragment on the other side. */
function marked(text: string, spans: readonly (readonly [number, number, number, number])[], id: (k: number) => string, other: (k: number) => string): string {
  const starts = lineStarts(text);
  const owner = new Int32Array(text.length).fill(-1);
  // Fragments come longest first: a character in two keeps the longer one.
  spans.forEach(([l1, c1, l2, c2], k) => {
    const from = (starts[l1] ?? text.length) + c1;
    const to = Math.min(text.length, (starts[l2] ?? text.length) + c2 + 1);
    for (let i = from; i < to; i++) if (owner[i] < 0) owner[i] = k;
  });
  const out: string[] = [];
  const opened = new Set<number>();
  for (let i = 0; i < text.length;) {
    let j = i;
    while (j < text.length && owner[j] === owner[i]) j++;
    const piece = escapeHtml(text.slice(i, j));
    const k = owner[i];
    if (k < 0) out.push(piece);
    else {
      // The first run of a fragment carries its anchor; every run links to the other side.
      const anchor = opened.has(k) ? '' : ` id="${id(k)}"`;
      opened.add(k);
      out.push(`<a class="shared"${anchor} href="#${other(k)}">${piece}</a>`);
    }
    i = j;
  }
  return out.join('');
}

/** The text from the first character of token `from` to the last of token `to`. */
function spanOfTokens(s: Tokenised, from: number, to: number): Span {
  const [first, last] = [spanOf(s.spans, from), spanOf(s.spans, to)];
  return [first[0], first[1], last[2], last[3]];
}

/** The text a pane shows: whole lines up to PANE_CHARS, and a line saying how much is left out. */
function paneText(text: string): { shown: string; note: string } {
  if (text.length <= PANE_CHARS) return { shown: text, note: '' };
  const cut = text.lastIndexOf('\n', PANE_CHARS);
  const shown = text.slice(0, cut > 0 ? cut + 1 : PANE_CHARS);
  return { shown, note: `\n… ${text.length - shown.length} more characters not shown (similarity.csv has the pair; the submission's files have the rest)` };
}

function sideBySide(detail: PairDetail, index: number, bySubmission: ReadonlyMap<string, Tokenised>): string {
  const id = (side: 'a' | 'b') => (k: number) => `p${index}-f${k}-${side}`;
  const [a, b] = [bySubmission.get(detail.a)!, bySubmission.get(detail.b)!];
  const [ta, tb] = [paneText(a.text), paneText(b.text)];
  const left = marked(ta.shown, detail.fragments.map((f) => spanOfTokens(a, f.a.from, f.a.to)), id('a'), id('b')) + escapeHtml(ta.note);
  const right = marked(tb.shown, detail.fragments.map((f) => spanOfTokens(b, f.b.from, f.b.to)), id('b'), id('a')) + escapeHtml(tb.note);
  const list = detail.fragments.slice(0, 12).map((f, k) => `<a href="#${id('a')(k)}">${f.tokens} tokens</a>`).join(', ');
  return [
    `<section class="pair" id="pair-${index}">`,
    `<h3>${escapeHtml(detail.a)} · ${escapeHtml(detail.b)}: ${detail.shared} tokens shared, ${percent(detail.score)}</h3>`,
    `<p class="muted">${escapeHtml(detail.a)} has ${percent(detail.aInB)} of its fingerprints in ${escapeHtml(detail.b)}; ${escapeHtml(detail.b)} has ${percent(detail.bInA)} in ${escapeHtml(detail.a)}. `
      + `Shared fragments, longest first: ${list || 'none left after the handout and common code'}. Each marked stretch links to its match on the other side. <a href="#pairs">Back to the pairs</a></p>`,
    '<div class="sides">',
    `<div><div class="side-name">${escapeHtml(detail.a)}</div><pre class="code">${left}</pre></div>`,
    `<div><div class="side-name">${escapeHtml(detail.b)}</div><pre class="code">${right}</pre></div>`,
    '</div>',
    '</section>',
  ].join('\n');
}

const EXTRA_STYLE = `<style>
.sides { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px; }
.side-name { font-weight: 600; font-size: 13px; margin: 6px 0 2px; overflow-wrap: anywhere; }
.pair h3, td.name, .cluster { overflow-wrap: anywhere; }
pre.code { background: var(--bg-alt); border: 1px solid var(--line); border-radius: 6px; padding: 8px; max-height: 640px; overflow: auto; white-space: pre; }
a.shared { background: #fff1b8; color: inherit; text-decoration: none; border-bottom: 1px solid #d9b400; }
a.shared:target { background: #ffd166; outline: 2px solid #d9822b; }
.pair { border-top: 1px solid var(--line); margin-top: 18px; padding-top: 6px; }
.cluster { margin: 4px 0; }
</style>`;

export interface SimilarityReport {
  html: string;
  csv: string;
  /** The pairs at or above the threshold, with their fragments (best first). */
  flagged: PairDetail[];
  groups: string[][];
}

/** `handout`: which handout's code was subtracted (handout.ts Handout.described), or undefined for none. */
export function similarityReport(comparison: Comparison, notCompared: readonly NotCompared[], threshold: number, handout: string | undefined): SimilarityReport {
  const flaggedCount = comparison.scores.reduce((sum, s) => sum + (s.score >= threshold ? s.pairs : 0), 0);
  const listed = comparison.listed(threshold, Math.max(0, CSV_PAIRS - flaggedCount));
  const above = listed.slice(0, flaggedCount);
  const csv = [['a', 'b', 'score', 'a_in_b', 'b_in_a', 'shared_tokens', 'longest_fragment_tokens'].map((c) => csvCell(c)).join(',')];
  // The pairs of identical submissions repeat one pair's figures: each is formatted once.
  const formatted = new Map<number, string>();
  const number = (x: number) => formatted.get(x) ?? formatted.set(x, formatNumber(x)).get(x)!;
  for (const p of listed) {
    csv.push([csvCell(p.a), csvCell(p.b), number(p.score), number(p.aInB), number(p.bInA), String(p.shared), String(p.longest)].join(','));
  }
  const groups = clusters(above, threshold);
  const bySubmission = new Map(comparison.submissions.map((s) => [s.name, s]));
  let budget = PAGE_CHARS;
  const shown = above.slice(0, PAGE_PAIRS).filter((p) => {
    budget -= Math.min(PANE_CHARS, bySubmission.get(p.a)!.text.length) + Math.min(PANE_CHARS, bySubmission.get(p.b)!.text.length);
    return budget >= 0;
  });
  const rows = above.slice(0, TABLE_PAIRS).map((p, i) => {
    const name = i < shown.length ? `<a href="#pair-${i}">${i + 1}</a>` : String(i + 1);
    return `<tr><td class="num">${name}</td><td class="name">${escapeHtml(p.a)}</td><td class="name">${escapeHtml(p.b)}</td><td class="num">${p.shared}</td>`
      + `<td class="num">${p.longest}</td><td class="num">${percent(p.score)}</td><td class="num">${percent(p.aInB)}</td><td class="num">${percent(p.bInA)}</td></tr>`;
  });
  const body = [
    EXTRA_STYLE,
    `<h1>Code similarity: ${comparison.submissions.length} submissions</h1>`,
    '<div class="warning"><p><strong>Evidence, not a verdict.</strong> On a 20-line exercise with one textbook formula, similar code is '
      + 'expected: every student implements softmax(Q Kᵀ / √d_k) V from the same lecture and the same handout. This page marks no one. '
      + 'A high score says that two submissions share long stretches of the same structure once names, literals, comments, layout, types, '
      + `syntax and code that change nothing (semicolons, needless parentheses and braces, statements and branches that never do anything, one spelling of a meaning for another) and the handout's own code are set aside; `
      + 'read them side by side, and weigh it with what else you know, before drawing any conclusion.</p></div>',
    `<p class="muted">Tokens from TypeScript's parser and scanner (every chosen name one token, every literal one per kind, what changes nothing set aside), fingerprinted by winnowing `
      + `(${KGRAM}-token k-grams, one per window of ${WINDOW}; the handout's ${comparison.handoutKgrams} k-grams are no fingerprint, and a fingerprint found in more than ${comparison.commonAt} submissions counts for no pair). `
      + 'A pair\'s score is the share of both submissions\' fingerprints that they share; the pairs at or above the threshold are listed by how much code they share '
      + '(tokens in shared stretches, then the longest stretch), so that a long copy comes before two short files that match.</p>',
    `<p>${handout ? `Handout subtracted: ${escapeHtml(handout)}.` : 'No handout subtracted: the code every student received counts as shared.'}</p>`,
    distribution(comparison, threshold),
    '<h2>Groups of three or more</h2>',
    groups.length
      ? groups.map((g) => `<p class="cluster">${g.length} submissions: ${g.map(escapeHtml).join(', ')}</p>`).join('\n')
      : `<p class="muted">No three submissions are joined by pairs at or above ${percent(threshold)}.</p>`,
    `<h2 id="pairs">Pairs at or above ${percent(threshold)}, most shared code first</h2>`,
    above.length
      ? '<table><thead><tr><th class="num">#</th><th>submission</th><th>submission</th><th class="num">shared tokens</th><th class="num">longest fragment (tokens)</th>'
        + `<th class="num">score</th><th class="num">first in second</th><th class="num">second in first</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`
        + (above.length > TABLE_PAIRS ? `<p class="muted">The first ${TABLE_PAIRS} of ${above.length} are listed here; similarity.csv lists them all.</p>` : '')
        + (above.length > shown.length ? `<p class="muted">The first ${shown.length} are shown side by side below.</p>` : '')
      : `<p class="muted">No pair reaches ${percent(threshold)}.</p>`,
    notCompared.length
      ? `<h2>Not compared</h2><ul>${notCompared.map((s) => `<li>${escapeHtml(s.name)}: ${escapeHtml(s.problem)}</li>`).join('')}</ul>`
      : '',
    ...shown.map((p, i) => sideBySide(p, i, bySubmission)),
  ].join('\n');
  return { html: htmlPage('Code similarity', body), csv: `${csv.join('\r\n')}\r\n`, flagged: above, groups };
}
