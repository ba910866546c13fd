/**
 * The four HTML pages in a real browser: a submission's page (a catalogued mistake, so its
 * attention cases fail), a batch report, the explore page and the similarity page. Each is made by its own command,
 * loaded from file://, and must draw every heatmap cell, log no console error and ask for nothing
 * over the network. The screenshots land in docs/ for the README.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import seedrandom from 'seedrandom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withSection } from '../../lib/bench/similarity';
import { batchReportHtml } from '../../lib/report/batchReport';
import { toGradescope } from '../../lib/report/gradescope';
import { caseResult as sampleCase, submission as sampleSubmission } from '../../lib/report/sampleResults';
import { MASK_SEQ } from '../../lib/explore/experiments';
import { loadFixture } from '../../lib/grading/fixtures';
import { PROJECT_ROOT, TS_NODE_BIN } from '../../lib/paths';
import { DEFAULT_CAP } from '../../lib/report/heatmap';
import { GRADED_CASES, visibleCases } from '../../tests/cases';
import { materialize, tempDir } from '../grader/materialize';
import { launchChromium } from './chromium';

const DOCS = path.join(PROJECT_ROOT, 'docs');
const work = tempDir('browser');
const bugs = path.join(PROJECT_ROOT, 'selftest', 'catalogue', 'bugs');
/** A batch of pretend students; the last name is full of HTML and URL syntax. */
const CLASS: Record<string, string> = {
  alice: path.join(PROJECT_ROOT, 'reference', 'index.ts'),
  bob: path.join(bugs, 'scale_missing.ts'),
  carol: path.join(bugs, 'mask_inverted.ts'),
  dave: path.join(bugs, 'k_not_transposed.ts'),
  erin: path.join(bugs, 'fully_masked_nan.ts'),
  frank: path.join(bugs, 'softmax_over_queries.ts'),
  'grace "<b>" & #1': path.join(PROJECT_ROOT, 'reference', 'index.ts'),
};
/** Two solutions, each with a disguised copy (selftest/similarity/corpus), and one on its own. */
const SIMILAR: Record<string, string> = {
  alice: path.join(PROJECT_ROOT, 'reference', 'index.ts'),
  bob: path.join(PROJECT_ROOT, 'selftest', 'similarity', 'corpus', 'reference_disguised.ts'),
  carol: path.join(PROJECT_ROOT, 'selftest', 'catalogue', 'correct', 'plain_loops.ts'),
  dave: path.join(PROJECT_ROOT, 'selftest', 'similarity', 'corpus', 'plain_loops_disguised.ts'),
  erin: path.join(PROJECT_ROOT, 'selftest', 'catalogue', 'correct', 'float32_loops.ts'),
};
const files = {
  similarity: path.join(work, 'similarity'),
  submission: path.join(work, 'scale_missing.html'),
  batch: path.join(work, 'batch'),
  explore: path.join(work, 'explore.html'),
};

function run(script: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [TS_NODE_BIN, script, ...args],
      { cwd: PROJECT_ROOT, encoding: 'utf8' }, (err, stdout, stderr) => (err ? reject(new Error(`${script}: ${stderr || stdout}`)) : resolve()));
  });
}

let browser: Browser;

beforeAll(async () => {
  const submissions = path.join(work, 'submissions');
  for (const [name, entry] of Object.entries(CLASS)) materialize(entry, submissions, name);
  const single = materialize(path.join(bugs, 'scale_missing.ts'), work);
  const similar = path.join(work, 'similar');
  for (const [name, entry] of Object.entries(SIMILAR)) {
    fs.mkdirSync(path.join(similar, name), { recursive: true });
    fs.copyFileSync(entry, path.join(similar, name, 'index.ts'));
  }
  // A line far wider than a pane: the pane scrolls, the page does not widen.
  fs.appendFileSync(path.join(similar, 'dave', 'index.ts'), `\n// ${'a long comment line '.repeat(40)}\n`);
  [browser] = await Promise.all([
    launchChromium(),
    run('scripts/grade.ts', ['--submission', single, '--html', files.submission]),
    run('scripts/grade.ts', ['--submissions', submissions, '--out', files.batch, '--jobs', '2']),
    run('scripts/explore.ts', ['--out', files.explore]),
    run('scripts/similarity.ts', ['--submissions', similar, '--out', files.similarity]),
  ]);
});

afterAll(async () => {
  await browser?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

interface Visit {
  page: Page;
  /** Every URL the page asked for, its own included. */
  requests: string[];
  errors: string[];
}

async function visit(file: string): Promise<Visit> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const visit: Visit = { page, requests: [], errors: [] };
  context.on('request', (request) => visit.requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') visit.errors.push(message.text());
  });
  page.on('pageerror', (err) => visit.errors.push(err.message));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  return visit;
}

/** Each heatmap's drawn [rows, cols], and whether its cells number rows × cols. */
async function heatmaps(page: Page): Promise<{ shape: [number, number]; complete: boolean; width: number }[]> {
  return page.$$eval('svg.heatmap', (svgs) => svgs.map((svg) => {
    const [rows, cols] = [Number(svg.getAttribute('data-rows')), Number(svg.getAttribute('data-cols'))];
    const cells = svg.querySelectorAll('rect.cell').length;
    return { shape: [rows, cols] as [number, number], complete: cells === rows * cols, width: svg.getBoundingClientRect().width };
  }));
}

function expectQuiet({ requests, errors, page }: Visit): void {
  expect(errors).toEqual([]);
  expect(requests).toEqual([page.url()]);
}

describe('a submission page (scale forgotten)', () => {
  it('three heatmaps of n_q × n_k cells per failed attention case, rendered, quiet; screenshot', async () => {
    const visited = await visit(files.submission);
    const expected = visibleCases('scaled_dot_product_attention').flatMap((c) => {
      const { q, k } = loadFixture(c.fixture).inputs;
      const shape: [number, number] = [Math.min(DEFAULT_CAP, q.shape[q.ndim - 2]), Math.min(DEFAULT_CAP, k.shape[k.ndim - 2])];
      return [shape, shape, shape];
    });
    const drawn = await heatmaps(visited.page);
    expect(drawn.map((h) => h.shape)).toEqual(expected);
    expect(drawn.every((h) => h.complete && h.width > 0)).toBe(true);
    expect(await visited.page.locator('.aside h3').allTextContents()).toEqual(expected.slice(0, expected.length / 3).map(() => 'Diagnosis'));
    expectQuiet(visited);
    // The score table and the first case's heatmaps: what a student sees first.
    const firstCase = await visited.page.locator('section.case').first().boundingBox();
    await visited.page.screenshot({ path: path.join(DOCS, 'report-submission.png'), fullPage: true,
      clip: { x: 0, y: 0, width: 1280, height: Math.ceil(firstCase!.y + firstCase!.height + 16) } });
  });
});

describe('the batch report', () => {
  it('a histogram bar per point, a pass-rate bar per test, a working link per submission, quiet; screenshot', async () => {
    const visited = await visit(path.join(files.batch, 'report.html'));
    const { page } = visited;
    expect(await page.locator('svg.histogram rect.bar').count()).toBe(12);
    expect(await page.locator('svg.rates rect.bar').count()).toBe(visibleCases().length);
    const links = await page.$$eval('a.submission', (as) => as.map((a) => ({ text: a.textContent, href: a.getAttribute('href') ?? '' })));
    expect(links.map((l) => l.text).sort()).toEqual(Object.keys(CLASS).sort());
    for (const { href } of links) expect(fs.existsSync(fileURLToPath(new URL(href, page.url()))), href).toBe(true);
    await page.waitForSelector('body[data-grid="ready"]');
    expect(await page.locator('table.mistakes .mistake').allTextContents()).toEqual(
      expect.arrayContaining(['scale_missing', 'mask_inverted', 'k_not_transposed', 'fully_masked_nan', 'softmax_over_queries']),
    );
    expectQuiet(visited);
    await page.screenshot({ path: path.join(DOCS, 'report-batch.png'), fullPage: true });

    // The name full of syntax leads to its own page, which names it as written.
    await page.locator('a.submission', { hasText: 'grace' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('h1').textContent()).toBe('Attention assignment: grace "<b>" & #1');
    expect(visited.errors).toEqual([]);
  });
});

describe('the explore page', () => {
  it('two saturation plots of 2 × 7 points, six 8 × 8 heatmaps, quiet; screenshot', async () => {
    const visited = await visit(files.explore);
    const { page } = visited;
    expect(await page.locator('svg.plot').count()).toBe(2);
    for (const plot of await page.locator('svg.plot').all()) expect(await plot.locator('.point').count()).toBe(2 * 7);
    const drawn = await heatmaps(page);
    expect(drawn.map((h) => h.shape)).toEqual(Array.from({ length: 6 }, () => [MASK_SEQ, MASK_SEQ]));
    expect(drawn.every((h) => h.complete && h.width > 0)).toBe(true);
    expectQuiet(visited);
    await page.screenshot({ path: path.join(DOCS, 'explore.png'), fullPage: true });
  });
});

/** Scrolls each block that waits to be drawn into view, as a reader would, until none waits. */
async function drawAll(page: Page): Promise<void> {
  for (;;) {
    const [block] = await page.$$eval('#grid tbody.pending', (tbs) => tbs.map((tb) => tb.getAttribute('data-b')));
    if (block === undefined) return;
    await page.locator(`#grid tbody[data-b="${block}"]`).scrollIntoViewIfNeeded();
    await page.waitForSelector(`#grid tbody[data-b="${block}"]:not(.pending)`);
  }
}

/** A course of 1,000 made-up results (seeded), for the grid: no grading needed to draw it. */
function course(count: number): string {
  const random = seedrandom('course-grid');
  const causes: Record<string, string> = { scaled_dot_product_attention: 'scale_missing', causal_mask: 'causal_off_by_one', softmax: 'softmax_unstable' };
  const entries = Array.from({ length: count }, (_, i) => {
    const name = `student${String(i).padStart(4, '0')}`;
    const brokenAttention = random() < 0.3;
    const cases = GRADED_CASES.map((c) => {
      const fails = (c.fn === 'scaled_dot_product_attention' || c.fn === 'multihead_self_attention') ? brokenAttention : random() < 0.1;
      if (!fails) return sampleCase(c.name, { fn: c.fn, hidden: c.hidden, maxPoints: c.points });
      const mistake = c.fn === 'multihead_self_attention' ? 'attention_broken' : causes[c.fn];
      return sampleCase(c.name, { fn: c.fn, hidden: c.hidden, maxPoints: c.points, status: 'failed', reason: 'values differ',
        ...(mistake && { diagnosis: { mistake, message: mistake } }) });
    });
    return { name, results: toGradescope(sampleSubmission(name, cases)) };
  });
  const file = path.join(work, 'course.html');
  fs.writeFileSync(file, batchReportHtml(entries, GRADED_CASES));
  return file;
}

describe('the batch report of a 1,000-submission course', () => {
  it('draws the grid in under a second (measured), answers "who failed test_causal_mask_hidden and why" in two clicks', async () => {
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
    // Click 1 opens the "who failed" list, click 2 picks the test: the rows are who failed it, each with why.
    await page.locator('#f-test').selectOption({ label: 'test_causal_mask_hidden' });
    await drawAll(page);
    const rows = await page.locator('#grid tr[data-r]').count();
    const data = JSON.parse(String(await page.locator('#grid-data').textContent())) as { tests: [string][]; rows: [string, string, number, number, ([number] | null)[]][] };
    const t = data.tests.findIndex(([name]) => name === 'test_causal_mask_hidden');
    const failedIt = data.rows.filter((r) => r[4][t] && r[4][t]![0] !== 0).length;
    expect(rows).toBe(failedIt);
    expect(rows).toBeGreaterThan(0);
    expect(await page.locator('#grid tbody td.why').first().textContent()).toMatch(/test_causal_mask_hidden: failed, 0\/[\d.]+ · causal_off_by_one: Your mask hides the diagonal/);
    // Sorting by score puts the lowest score last when descending.
    await page.locator('#grid th[data-k="score"]').click();
    await drawAll(page);
    const first = await page.locator('#grid tbody tr td:nth-child(2)').first().textContent();
    const last = await page.locator('#grid tbody tr td:nth-child(2)').last().textContent();
    expect(Number(first!.split('/')[0])).toBeGreaterThanOrEqual(Number(last!.split('/')[0]));
    expect(visited.errors).toEqual([]);
  });
});

describe('the similarity page', () => {
  it('the distribution, the two flagged pairs side by side, fragments that lead to their other side, quiet; screenshot', async () => {
    const visited = await visit(path.join(files.similarity, 'similarity.html'));
    const { page } = visited;
    expectQuiet(visited);
    expect(await page.locator('svg.histogram rect.bar').count()).toBe(10);
    expect(await page.locator('text=Evidence, not a verdict.').count()).toBe(1);
    const pairs = await page.$$eval('section.pair h3', (hs) => hs.map((h) => h.textContent ?? ''));
    expect(pairs.map((h) => h.replace(/: \d+ tokens shared, \d+%$/, '')).sort()).toEqual(['alice · bob', 'carol · dave']);
    // Two columns of code, side by side, both inside a 1280-px window, whatever the width of a line.
    for (const section of await page.locator('section.pair').all()) {
      const sides = await section.locator('pre.code').all();
      const [left, right] = await Promise.all(sides.map((side) => side.boundingBox()));
      expect(left!.width).toBeGreaterThan(200);
      expect(right!.x).toBeGreaterThan(left!.x + left!.width - 1);
      expect(right!.x + right!.width).toBeLessThanOrEqual(1280);
    }
    expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(1280);
    // A shared fragment on the left leads to its match on the right.
    const fragment = page.locator('a.shared[id$="-a"]').first();
    const target = (await fragment.getAttribute('href'))!;
    await fragment.click();
    expect(new URL(page.url()).hash).toBe(target);
    expect(await page.locator(`${target}:target`).count()).toBe(1);
    // Following a fragment asked the network for nothing.
    expect(visited.requests).toHaveLength(1);
    expect(visited.errors).toEqual([]);
    await page.goto(page.url().replace(/#.*$/, ''));
    await page.screenshot({ path: path.join(DOCS, 'report-similarity.png'), fullPage: false });
  });
});
