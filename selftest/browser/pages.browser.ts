/**
 * Three HTML pages in a real browser: a submission's page (a catalogued mistake, so its attention
 * cases fail), the explore page and the similarity page (the batch report has a file of its own,
 * batchReport.browser.ts). Each is made by its own command, loaded from file://, and must draw
 * every heatmap cell, log no console error and ask for nothing over the network. The screenshots
 * land in docs/ for the README.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASK_SEQ } from '../../reference/explore/experiments';
import { loadFixture } from '../../lib/model/fixtures';
import { PROJECT_ROOT } from '../../lib/paths';
import { DEFAULT_CAP } from '../../lib/report/heatmap';
import { visibleCases } from '../../tests/cases';
import { materialize, tempDir } from '../grader/materialize';
import { launchChromium } from './chromium';
import { expectQuiet, run, visit as open } from './visit';

const DOCS = path.join(PROJECT_ROOT, 'docs');
const work = tempDir('browser');
const bugs = path.join(PROJECT_ROOT, 'selftest', 'catalogue', 'bugs');
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
  explore: path.join(work, 'explore.html'),
};

let browser: Browser;

beforeAll(async () => {
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
    run('scripts/explore.ts', ['--out', files.explore]),
    run('scripts/similarity.ts', ['--submissions', similar, '--out', files.similarity]),
  ]);
});

afterAll(async () => {
  await browser?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const visit = (file: string) => open(browser, file);

/** Each heatmap's drawn [rows, cols], and whether its cells number rows × cols. */
async function heatmaps(page: Page): Promise<{ shape: [number, number]; complete: boolean; width: number }[]> {
  return page.$$eval('svg.heatmap', (svgs) => svgs.map((svg) => {
    const [rows, cols] = [Number(svg.getAttribute('data-rows')), Number(svg.getAttribute('data-cols'))];
    const cells = svg.querySelectorAll('rect.cell').length;
    return { shape: [rows, cols] as [number, number], complete: cells === rows * cols, width: svg.getBoundingClientRect().width };
  }));
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

describe('the explore page', () => {
  it('two saturation plots of 2 × 7 points, two gradient plots of 4 × 5, six 8 × 8 heatmaps, quiet; screenshot', async () => {
    const visited = await visit(files.explore);
    const { page } = visited;
    const points = await Promise.all((await page.locator('svg.plot').all()).map((plot) => plot.locator('.point').count()));
    expect(points).toEqual([2 * 7, 2 * 7, 4 * 5, 4 * 5]);
    const drawn = await heatmaps(page);
    expect(drawn.map((h) => h.shape)).toEqual(Array.from({ length: 6 }, () => [MASK_SEQ, MASK_SEQ]));
    expect(drawn.every((h) => h.complete && h.width > 0)).toBe(true);
    expectQuiet(visited);
    await page.screenshot({ path: path.join(DOCS, 'explore.png'), fullPage: true });
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
