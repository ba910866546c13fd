import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GRADED_CASES } from '../../tests/cases';
import type { AttentionHeatmap, CaseResult, SubmissionResult } from '../model/result';
import { batchReportHtml, pageFile, resultsFile } from './batchReport';
import { GRID_SCRIPT } from './courseGrid';
import { niceTicks } from './charts';
import { toGradescope } from './gradescope';
import { colorOf, heatmapSvg, type Matrix } from './heatmap';
import { escapeHtml, fileHref } from './html';
import { submissionPage } from './submissionPage';
import { caseResult, submission as sampleSubmission } from './sampleResults';
import { parseLatePolicy, withLatePenalty, type LatePolicy, type LateTime } from '../late/policy';
import { CauseBook } from './causes';
import { MISTAKES } from '../../tests/diagnosis/catalogue';
import { ASSIGNMENT } from '../../tests/assignment';
import { FUNCTIONS } from '../../adapters/functions';

const TERMS = { functions: FUNCTIONS, causes: new CauseBook(MISTAKES), title: ASSIGNMENT.page.title };

const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)> "quoted" & \'single\'';

const submission = (name: string, cases: CaseResult[], over: Partial<SubmissionResult> = {}) =>
  sampleSubmission(name, cases, { executionTimeMs: 900, ...over });
const matrix = (rows: number, cols: number, f: (i: number, j: number) => number): Matrix =>
  ({ rows, cols, data: Float64Array.from({ length: rows * cols }, (_, n) => f(Math.floor(n / cols), n % cols)) });
const cellCount = (svg: string) => (svg.match(/<rect class="cell"/g) ?? []).length;

describe('escaping', () => {
  it('escapes the five characters HTML gives meaning to', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
  it('a link to a file named with URL and HTML syntax', () => {
    expect(fileHref('a "b" <c> & d#%:x.html')).toBe('a%20%22b%22%20%3Cc%3E%20%26%20d%23%25%3Ax.html');
  });
  it('no two submission names share a file, whatever their case or suffix, and none reaches the batch\'s own', () => {
    expect(pageFile('alice')).toBe('submissions/alice.html');
    expect(pageFile('report')).toBe('submissions/report.html');
    const names = ['batch', 'batch.submission', 'Batch', 'BATCH', 'grades', 'report', '.', '..', 'a/b', 'a%2Fb', 'é', 'É', 'x.json', 'x', ' x', 'x ', '%41', 'A'];
    for (const file of [pageFile, resultsFile]) {
      const files = names.map(file);
      expect(new Set(files.map((f) => f.toLowerCase())).size, file.name).toBe(names.length);
      for (const f of files) expect(f).toMatch(/^submissions\/[a-z0-9_%-]+\.(html|json)$/i);
    }
    expect(fileHref(pageFile('Alice Smith'))).toMatch(/^submissions\/alice-smith--[a-z2-7]{26}\.html$/);
  });
});

describe('heatmapSvg', () => {
  it('one cell per value, query rows and key columns labelled', () => {
    const svg = heatmapSvg(matrix(5, 9, (i, j) => i + j), { title: 't', scale: { kind: 'sequential', min: 0, max: 12 } });
    expect(cellCount(svg)).toBe(45);
    expect(svg).toContain('data-rows="5" data-cols="9"');
    expect(svg).toMatch(/key →/);
    expect(svg).toMatch(/← query/);
    expect(svg).toContain('<title>query 4, key 8: 12</title>');
  });
  it('caps at 32×32 and says what was cut', () => {
    const svg = heatmapSvg(matrix(40, 3, () => 0.5), { title: 't', scale: { kind: 'sequential', min: 0, max: 1 } });
    expect(cellCount(svg)).toBe(32 * 3);
    expect(svg).toContain('first 32 of 40 queries, 3 of 3 keys');
  });
  it('NaN has its own colour and is counted in the note', () => {
    const svg = heatmapSvg(matrix(2, 2, (i) => (i === 0 ? NaN : 0.5)), { title: 't', scale: { kind: 'sequential', min: 0, max: 1 } });
    expect(svg).toContain('2 NaN (pink)');
    expect(colorOf(NaN, { kind: 'diverging', limit: 1 })).not.toBe(colorOf(0, { kind: 'diverging', limit: 1 }));
  });
  it('escapes its title', () => {
    expect(heatmapSvg(matrix(1, 1, () => 0), { title: HOSTILE, scale: { kind: 'binary' } })).not.toContain('<script');
  });
});

describe('niceTicks', () => {
  it('round steps covering the range', () => {
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0, 2.3026)).toEqual([0, 0.5, 1, 1.5, 2, 2.5]);
  });
});

describe('submissionPage', () => {
  const heatmap = (over: Partial<AttentionHeatmap> = {}): AttentionHeatmap =>
    ({ batchIndex: [0], hidden: false, expected: matrix(3, 4, () => 0.25), ...over });
  const failed = caseResult('test_scaled_dot_product_attention', {
    status: 'failed', reason: `Your output equals … — ${HOSTILE}`, details: HOSTILE, output: HOSTILE,
    diagnosis: { mistake: 'scale_missing', message: 'Your output equals …' },
  });
  const result = submission(HOSTILE, [failed, caseResult('test_causal_mask', { fn: 'causal_mask' })], { feedback: [HOSTILE] });

  it('escapes every string the student controls', () => {
    const page = submissionPage({ ...result, heatmaps: new Map([[failed.name, heatmap({ problem: HOSTILE })]]) }, ASSIGNMENT.cases, ASSIGNMENT.page);
    expect(page).not.toMatch(/<script|<img/i);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // The only <script-like text left is the escaped one; the policy would block it anyway.
    expect(page).toContain("default-src 'none'");
  });

  it('expected, yours and the difference: three heatmaps of n_q × n_k cells, the diagnosis beside', () => {
    const actual = matrix(3, 4, (_, j) => (j === 0 ? 1 : 0));
    const page = submissionPage({ ...result, heatmaps: new Map([[failed.name, heatmap({ actual })]]) }, ASSIGNMENT.cases, ASSIGNMENT.page);
    expect(cellCount(page)).toBe(3 * 12);
    expect(page).toContain('your probabilities');
    expect(page).toMatch(/<h3>Diagnosis<\/h3>\s*<p>Your output equals …<\/p>/);
  });

  it('a probe that gave nothing: the expected heatmap and why there is no other', () => {
    const page = submissionPage({ ...result, heatmaps: new Map([[failed.name, heatmap({ problem: 'with V = identity the function threw' })]]) }, ASSIGNMENT.cases, ASSIGNMENT.page);
    expect(cellCount(page)).toBe(12);
    expect(page).toContain('No heatmap of yours:</strong> with V = identity the function threw');
  });

  it('masked cells are marked, a masked 0 drawn grey rather than as a tiny probability', () => {
    const allowed = matrix(3, 4, (_, j) => (j < 3 ? 1 : 0));
    const actual = matrix(3, 4, (i, j) => (j === 3 ? (i === 0 ? 1e-44 : 0) : 1 / 3));
    const page = submissionPage({ ...result, heatmaps: new Map([[failed.name, heatmap({ actual, allowed })]]) }, ASSIGNMENT.cases, ASSIGNMENT.page);
    expect((page.match(/<rect class="cell masked"/g) ?? []).length).toBe(3 * 3);
    expect(page).toContain('3 masked (crossed; grey when 0)');
    expect(page).toMatch(/<rect class="cell masked"[^>]*fill="#dcdfe5"><title>query 1, key 3 \(masked\)/);
  });

  it('a hidden case shows no expected values; an instructor view does, and says so at the top', () => {
    const actual = matrix(3, 4, () => 0.25);
    const student = submissionPage({ ...result, heatmaps: new Map([[failed.name, heatmap({ hidden: true, expected: undefined, actual })]]) }, ASSIGNMENT.cases, ASSIGNMENT.page);
    expect(cellCount(student)).toBe(12);
    expect(student).not.toContain('>expected probabilities<');
    expect(student).toContain('its expected values are not shown');
    expect(student).not.toContain("Instructor's view");
    const instructor = submissionPage({ ...result, heatmaps: new Map([[failed.name, heatmap({ hidden: true, actual })]]) }, ASSIGNMENT.cases, ASSIGNMENT.page);
    expect(cellCount(instructor)).toBe(3 * 12);
    expect(instructor).toContain("Instructor&#39;s view: this page shows the expected values of hidden tests");
  });

  it('no heatmaps asked for: the score table alone', () => {
    const page = submissionPage(result, ASSIGNMENT.cases, ASSIGNMENT.page);
    expect(cellCount(page)).toBe(0);
    expect(page).toContain('<td class="test">test_causal_mask</td>');
  });
});

describe('batchReportHtml', () => {
  const cases = GRADED_CASES.filter((c) => c.name === 'test_scaled_dot_product_attention' || c.name === 'test_causal_mask');
  const good = submission('good', [caseResult(cases[0].name, { maxPoints: 1 }), caseResult(cases[1].name, { fn: 'causal_mask' })]);
  const bad = submission(HOSTILE, [
    caseResult(cases[0].name, { maxPoints: 1, status: 'failed', reason: 'x', diagnosis: { mistake: 'scale_missing', message: 'm' } }),
    caseResult(cases[1].name, { fn: 'causal_mask' }),
  ]);

  it('statistics, histogram, pass rates, causes with who has them, the grid data escaped, one script of ours allowed by its hash', () => {
    const page = batchReportHtml([
      { name: 'good', results: toGradescope(good), page: 'good.html' },
      { name: HOSTILE, results: toGradescope(bad), page: pageFile(HOSTILE) },
      { name: 'lost' },
    ], cases, TERMS);
    // One script, ours: the policy names its hash; no submission's text can open or close an element.
    const scripts = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(scripts).toEqual([GRID_SCRIPT]);
    const hash = createHash('sha256').update(GRID_SCRIPT, 'utf8').digest('base64');
    expect(page).toContain(`script-src 'sha256-${hash}'`);
    expect(page).not.toMatch(/<img/i);
    const data = /<script type="application\/json" id="grid-data">([^<]*)<\/script>/.exec(page)![1];
    const parsed = JSON.parse(data) as { rows: [string, string, number, number, unknown[]][] };
    expect(parsed.rows.map((r) => r[0])).toEqual(['good', HOSTILE]);
    expect(parsed.rows[1][1]).toBe(fileHref(pageFile(HOSTILE)));
    expect(page).toMatch(/scale_missing<\/span><\/td><td class="num">1<\/td><td class="num">1<\/td>/);
    expect(page).toContain(`<summary>1 submission(s)</summary>${escapeHtml(HOSTILE)}</details>`);
    expect(page).toMatch(/median <strong>1<\/strong>, quartiles 0.75 and 1.25, min 0.5, max 1.5; <strong>1<\/strong> at full marks/);
    expect(page).toContain('1/2 (50%)');
    expect(page).toContain('Without a readable result (grade them again): lost.');
    expect(page).toContain(`<a class="page" href="${fileHref(pageFile(HOSTILE))}">${escapeHtml(HOSTILE)}</a>`);
    expect((page.match(/<rect class="bar"/g) ?? []).length).toBe(2 + 2); // 2 one-point bins (max 1.5), 2 tests
  });

  it("its heading is the assignment's title, escaped", () => {
    const entries = [{ name: 'good', results: toGradescope(good), page: 'good.html' }];
    expect(batchReportHtml(entries, cases, { ...TERMS, title: 'Norms <&> assignment' })).toContain('<h1>Norms &lt;&amp;&gt; assignment: 1 submissions</h1>');
  });

  it('under a late policy: points, penalty and score per row, and who lost points, had no time or had an extension', () => {
    const policy = parseLatePolicy('due=2026-12-01T23:59Z,per=day,penalty=10%', true) as LatePolicy;
    const due = Date.parse('2026-12-01T23:59Z');
    const late = (name: string, time: LateTime) => ({ name, results: toGradescope(withLatePenalty(good, policy, time)) });
    const page = batchReportHtml([
      late('penalised', { submittedMs: due + 3_600_000, source: 'times' }),
      late('untimed', { source: null }),
      late('extended', { submittedMs: due + 3_600_000, extendedMs: due + 86_400_000, source: 'times' }),
    ], cases, TERMS);
    expect(page).toContain('1 submission(s) lost points to it');
    expect(page).toContain('1 had no submission time, so no penalty (untimed)');
    expect(page).toContain('1 had a due time of their own (--extensions): extended (2026-12-02T23:59:00.000Z)');
    expect(page).toContain('Points are shown to 2 decimals');
    const data = JSON.parse(/<script type="application\/json" id="grid-data">([^<]*)<\/script>/.exec(page)![1]) as { late: number; rows: unknown[][] };
    expect(data.late).toBe(1);
    // 10% of the 1.5 points: 0.15 off.
    expect(data.rows.map((r) => [r[0], r[2], r[5]])).toEqual([['penalised', 1.35, [1.5, 0.15]], ['untimed', 1.5, [1.5, 0]], ['extended', 1.5, [1.5, 0]]]);
  });

  it('--carry-forward: the submissions whose points were carried are counted and named, escaped; without any, no note', () => {
    const carried = (name: string) => submission(name, [caseResult(cases[0].name, { maxPoints: 1, carried: true, reason: 'carried forward' }), caseResult(cases[1].name, { fn: 'causal_mask' })]);
    const page = batchReportHtml([
      { name: 'good', results: toGradescope(good) },
      { name: 'ada', results: toGradescope(carried('ada')) },
      { name: HOSTILE, results: toGradescope(carried(HOSTILE)) },
    ], cases, TERMS);
    expect(page).toContain(`--carry-forward: 2 submission(s) earned multi-head points on their own attention (ada, ${escapeHtml(HOSTILE)}); their tests' reasons say so.`);
    expect(batchReportHtml([{ name: 'good', results: toGradescope(good) }], cases, TERMS)).not.toContain('--carry-forward');
  });
});
