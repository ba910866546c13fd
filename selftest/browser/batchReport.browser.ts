/**
 * The batch report in a real browser: a batch of pretend students graded by `npm run grade`, and a
 * made-up course of 1,000. Each report is loaded from file:// in a laptop's window and must log no
 * console error, ask for nothing over the network, list every cause of a lost point (zero-point
 * ones too) most submissions first with its cause filter in the same order, show at least 15 rows
 * of its grid at once and no column head cut. The screenshot lands in docs/ for the README.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import seedrandom from 'seedrandom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withSection } from '../../lib/bench/benchmarksDoc';
import { PROJECT_ROOT } from '../../lib/paths';
import { batchReportHtml } from '../../lib/report/batchReport';
import { CauseBook } from '../../lib/report/causes';
import { MISTAKES } from '../../tests/diagnosis/catalogue';

const BOOK = { functions: FUNCTIONS, causes: new CauseBook(MISTAKES), title: 'Attention assignment' };
const causeWords = (id: string) => BOOK.causes.words(id);
import { toGradescope } from '../../lib/report/gradescope';
import { caseResult as sampleCase, submission as sampleSubmission } from '../../lib/report/sampleResults';
import { GRADED_CASES, visibleCases } from '../../tests/cases';
import { materialize, tempDir } from '../grader/materialize';
import { launchChromium } from './chromium';
import { causeOptions, causesFromCells, cutHeads, drawAll, gridJson, listedCauses, rowsInView, WINDOW } from './grid';
import { expectQuiet, run, visit as open } from './visit';
import { FUNCTIONS } from '../../adapters/functions';

const DOCS = path.join(PROJECT_ROOT, 'docs');
const work = tempDir('browser-batch');
const bugs = path.join(PROJECT_ROOT, 'selftest', 'catalogue', 'bugs');
/** Pretend students with a catalogued mistake or none; the last name is full of HTML and URL syntax. */
const CLASS: Record<string, string> = {
  alice: path.join(PROJECT_ROOT, 'reference', 'index.ts'),
  bob: path.join(bugs, 'scale_missing.ts'),
  carol: path.join(bugs, 'mask_inverted.ts'),
  dave: path.join(bugs, 'k_not_transposed.ts'),
  erin: path.join(bugs, 'fully_masked_nan.ts'),
  frank: path.join(bugs, 'softmax_over_queries.ts'),
  'grace "<b>" & #1': path.join(PROJECT_ROOT, 'reference', 'index.ts'),
};
const reference = () => fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8');
const replaced = (find: string, by: string) => () => {
  const code = reference();
  if (!code.includes(find)) throw new Error(`reference/index.ts no longer holds ${find}`);
  return code.replace(find, by);
};
const CAUSAL = 'export function causalMask(seqLen: number): Tensor {';
/**
 * Pretend students who lose points for a reason no diagnosis names, each with the cause the
 * report must list them under (lib/report/causes.ts): the report's list of causes must hold every one.
 */
const BROKEN: Record<string, { code?: () => string; cause: string }> = {
  sam: { code: replaced('Q.shape[Q.ndim - 1]', 'Q.shape[Q.ndim - 1'), cause: 'syntax error' },
  sid: { code: replaced('const e = shifted.exp();', 'const e = shifted.exp(;'), cause: 'syntax error' },
  sue: { code: () => `${reference()}\n}\n`, cause: 'syntax error' },
  ivy: { code: () => `${reference()}\nthrow new Error('not ready');\n`, cause: 'load error' },
  rex: { code: () => `import fs from 'node:fs';\n${reference()}`, cause: 'refused' },
  stan: { code: () => fs.readFileSync(path.join(PROJECT_ROOT, 'student', 'index.ts'), 'utf8'), cause: 'not implemented' },
  stella: { code: () => fs.readFileSync(path.join(PROJECT_ROOT, 'student', 'index.ts'), 'utf8'), cause: 'not implemented' },
  cole: { code: replaced(CAUSAL, `${CAUSAL}\n  process.exit(3);`), cause: 'crashed' },
  tim: { code: replaced(CAUSAL, `${CAUSAL}\n  for (;;) { /* forever */ }`), cause: 'timeout' },
  theo: { code: replaced(CAUSAL, `${CAUSAL}\n  if (seqLen > 0) throw new RangeError('no mask today');`), cause: 'error, no known cause' },
  nora: { cause: 'not gradable' },
};
const batch = path.join(work, 'batch');

let browser: Browser;

beforeAll(async () => {
  const submissions = path.join(work, 'submissions');
  for (const [name, entry] of Object.entries(CLASS)) materialize(entry, submissions, name);
  for (const [name, { code }] of Object.entries(BROKEN)) {
    fs.mkdirSync(path.join(submissions, name), { recursive: true });
    // nora handed in no code at all: nothing to grade.
    fs.writeFileSync(path.join(submissions, name, code ? 'index.ts' : 'README.txt'), code ? code() : 'my solution is on my laptop\n');
  }
  [browser] = await Promise.all([launchChromium(), run('scripts/grade.ts', ['--submissions', submissions, '--out', batch, '--jobs', '2'])]);
});

afterAll(async () => {
  await browser?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const visit = (file: string) => open(browser, file, WINDOW);

describe('the batch report', () => {
  it('a histogram bar per point, a pass-rate bar per test, a working link per submission, quiet; screenshot', async () => {
    const visited = await visit(path.join(batch, 'report.html'));
    const { page } = visited;
    expect(await page.locator('svg.histogram rect.bar').count()).toBe(12);
    expect(await page.locator('svg.rates rect.bar').count()).toBe(visibleCases().length);
    const links = await page.$$eval('a.submission', (as) => as.map((a) => ({ text: a.textContent, href: a.getAttribute('href') ?? '' })));
    expect(links.map((l) => l.text).sort()).toEqual([...Object.keys(CLASS), ...Object.keys(BROKEN)].sort());
    for (const { href } of links) expect(fs.existsSync(fileURLToPath(new URL(href, page.url()))), href).toBe(true);
    await page.waitForSelector('body[data-grid="ready"]');
    expectQuiet(visited);
    await page.screenshot({ path: path.join(DOCS, 'report-batch.png'), fullPage: true });

    // The name full of syntax leads to its own page, which names it as written.
    await page.locator('a.submission', { hasText: 'grace' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('h1').textContent()).toBe('Attention assignment: grace "<b>" & #1');
    expect(visited.errors).toEqual([]);
  });

  it('lists every cause, zero-point ones too, most submissions first; the cause filter the same; every head readable', async () => {
    const visited = await visit(path.join(batch, 'report.html'));
    const { page } = visited;
    await page.waitForSelector('body[data-grid="ready"]');
    const listed = await listedCauses(page);
    const counts = listed.map((c) => c.submissions);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    const byId = new Map(listed.map((c) => [c.id, c]));
    for (const cause of new Set(Object.values(BROKEN).map((b) => b.cause))) {
      const who = Object.entries(BROKEN).filter(([, b]) => b.cause === cause).map(([name]) => name).sort();
      // Code that throws is this cause's only when nothing explains the throw: others may share it.
      if (cause === 'error, no known cause') expect(byId.get(cause)?.names, cause).toEqual(expect.arrayContaining(who));
      else expect(byId.get(cause)?.names.sort(), cause).toEqual(who);
    }
    expect(listed.map((c) => c.id)).toEqual(
      expect.arrayContaining(['scale_missing', 'mask_inverted', 'k_not_transposed', 'fully_masked_nan', 'softmax_over_queries']),
    );
    // Every test that did not pass has a cause in the list, counted as the grid's cells count it.
    const { uncaused, counts: fromCells } = causesFromCells(await gridJson(page));
    expect(uncaused).toEqual([]);
    expect(Object.fromEntries(listed.map((c) => [c.id, c.submissions]))).toEqual(Object.fromEntries(fromCells));
    expect(await causeOptions(page)).toEqual(listed.map((c) => `${c.id} (${c.submissions})`));
    expect(await cutHeads(page)).toEqual([]);
    const rows = Object.keys(CLASS).length + Object.keys(BROKEN).length;
    expect(await rowsInView(page)).toBe(rows);
    // Who has a syntax error: the three.
    await page.locator('#f-cause').selectOption({ label: `syntax error (${byId.get('syntax error')?.submissions})` });
    expect(await page.$$eval('#grid tr[data-r] a.submission', (as) => as.map((a) => a.textContent))).toEqual(['sam', 'sid', 'sue']);
    expectQuiet(visited);
  });
});

/**
 * A course of 1,000 made-up results (seeded), for the grid: no grading needed to draw it. A few
 * hand in code that does not parse (every test 0) or leave multi-head attention a stub; the rest
 * fail tests with a diagnosis, whose words lead the reason as the grader writes it.
 */
function course(count: number): string {
  const random = seedrandom('course-grid');
  const causes: Record<string, string> = { scaled_dot_product_attention: 'scale_missing', causal_mask: 'causal_off_by_one', softmax: 'softmax_unstable' };
  const entries = Array.from({ length: count }, (_, i) => {
    const name = `student${String(i).padStart(4, '0')}`;
    const draw = random();
    const brokenAttention = random() < 0.3;
    const cases = GRADED_CASES.map((c) => {
      const base = { fn: c.fn, hidden: c.hidden, maxPoints: c.points };
      if (draw < 0.04) return sampleCase(c.name, { ...base, status: 'error', reason: `the submission failed to load: syntax error at ${name}/index.ts:12:7: ')' expected.` });
      if (draw < 0.1 && c.fn === 'multihead_self_attention') {
        return sampleCase(c.name, { ...base, status: 'not_implemented', reason: 'multiHeadSelfAttention is not implemented yet: edit student/index.ts' });
      }
      const fails = (c.fn === 'scaled_dot_product_attention' || c.fn === 'multihead_self_attention') ? brokenAttention : random() < 0.1;
      if (!fails) return sampleCase(c.name, base);
      const mistake = c.fn === 'multihead_self_attention' ? 'attention_broken' : causes[c.fn];
      return sampleCase(c.name, { ...base, status: 'failed', reason: mistake ? `${causeWords(mistake)} — values differ` : 'values differ',
        ...(mistake && { diagnosis: { mistake, message: causeWords(mistake) } }) });
    });
    return { name, results: toGradescope(sampleSubmission(name, cases)) };
  });
  const file = path.join(work, 'course.html');
  fs.writeFileSync(file, batchReportHtml(entries, GRADED_CASES, BOOK));
  return file;
}

describe('the batch report of a 1,000-submission course', () => {
  it('draws the grid (its load time measured for docs/benchmarks.md, under 10 s a hang guard), answers "who failed test_causal_mask_hidden and why" in two clicks', async () => {
    const file = course(1000);
    const visited = await visit(file);
    const { page } = visited;
    await page.waitForSelector('body[data-grid="ready"]');
    // Written as text: this project's type check has no DOM library; the browser runs it.
    const loadMs = Number(await page.evaluate('performance.getEntriesByType("navigation")[0].loadEventEnd'));
    console.log(`batch report, 1,000 submissions × ${GRADED_CASES.length} tests: loaded and drawn in ${Math.round(loadMs)} ms`);
    // Recorded in docs/benchmarks.md on request (UPDATE_BENCHMARKS=1): a plain run leaves the checkout as it was.
    const benchmarks = path.join(DOCS, 'benchmarks.md');
    if (process.env.UPDATE_BENCHMARKS === '1') fs.writeFileSync(benchmarks, withSection(fs.readFileSync(benchmarks, 'utf8'), [
      '## The batch report in a browser',
      '',
      `A report of 1,000 made-up submissions × ${GRADED_CASES.length} tests (the grid of lib/report/courseGrid.ts), opened from file:// in headless Chromium: `
        + `loaded, parsed and drawn in **${Math.round(loadMs)} ms** (navigation start to the end of the load event; goal under 1 s). `
        + 'The grid draws its rows in blocks of 40 as they scroll near the view, so what the load draws does not grow with the course; '
        + 'drawing all 28,000 cells at load took 1.4–2.0 s on the same machine. '
        + `Measured by the browser self-test on ${new Date().toISOString().slice(0, 10)}; \`UPDATE_BENCHMARKS=1 npm run test:browser\` rewrites this section.`,
    ]));
    expect(loadMs).toBeLessThan(10_000);
    // At load only the rows near the view are drawn; scrolling to the end draws every one.
    expect(await page.locator('#grid tr[data-r]').count()).toBeLessThan(1000);
    await drawAll(page);
    expect(await page.locator('#grid tr[data-r]').count()).toBe(1000);
    expect(await page.locator('#grid tbody td.c').count()).toBe(1000 * GRADED_CASES.length);
    expect(new Set(await page.$$eval('#grid tr[data-r]', (trs) => trs.map((tr) => tr.getAttribute('data-r')))).size).toBe(1000);
    expectQuiet(visited);
    // A laptop's window shows dozens of rows under heads that show whole.
    expect(await rowsInView(page)).toBeGreaterThanOrEqual(15);
    expect(await cutHeads(page)).toEqual([]);
    // The causes, zero-point ones too, most submissions first, as the grid's cells count them; the cause filter the same.
    const listed = await listedCauses(page);
    expect(listed.map((c) => c.id)).toEqual(expect.arrayContaining(['syntax error', 'not implemented', 'scale_missing', 'causal_off_by_one', 'attention_broken']));
    expect(listed.map((c) => c.submissions)).toEqual(listed.map((c) => c.submissions).sort((a, b) => b - a));
    const { uncaused, counts } = causesFromCells(await gridJson(page));
    expect(uncaused).toEqual([]);
    expect(Object.fromEntries(listed.map((c) => [c.id, c.submissions]))).toEqual(Object.fromEntries(counts));
    expect(await causeOptions(page)).toEqual(listed.map((c) => `${c.id} (${c.submissions})`));
    // Click 1 opens the "who failed" list, click 2 picks the test: the rows are who failed it, each with why.
    await page.locator('#f-test').selectOption({ label: 'test_causal_mask_hidden' });
    await drawAll(page);
    const rows = await page.locator('#grid tr[data-r]').count();
    const data = await gridJson(page);
    const t = data.tests.findIndex(([name]) => name === 'test_causal_mask_hidden');
    const failedIt = data.rows.filter((r) => r[4][t] && r[4][t]![0] !== 0).length;
    expect(rows).toBe(failedIt);
    expect(rows).toBeGreaterThan(0);
    // Each row says why once: the cause's id, then the reason, which leads with the diagnosis.
    const row = page.locator('#grid tbody tr[data-r]').first();
    expect(await row.locator('td.why').textContent()).toMatch(/^failed, 0\/[\d.]+ · causal_off_by_one — Your mask hides the diagonal/);
    expect((await row.textContent())!.split('Your mask hides the diagonal').length - 1).toBe(1);
    expect(await rowsInView(page)).toBeGreaterThanOrEqual(15);
    expect(await cutHeads(page)).toEqual([]);
    // Sorting by score puts the lowest score last when descending.
    await page.locator('#grid th[data-k="score"]').click();
    await drawAll(page);
    const first = await page.locator('#grid tbody tr td:nth-child(2)').first().textContent();
    const last = await page.locator('#grid tbody tr td:nth-child(2)').last().textContent();
    expect(Number(first!.split('/')[0])).toBeGreaterThanOrEqual(Number(last!.split('/')[0]));
    expect(visited.errors).toEqual([]);
  });
});

