/**
 * What the browser self-test measures on a batch report's grid and list of causes, as a reader
 * would meet them in a window: how many rows show at once, whether any column head is cut, and
 * the causes as listed, with the cause filter's options. Page code is passed as text: this
 * project's type check has no DOM library; the browser runs it.
 */
import type { Page } from 'playwright-core';

/** The window a reader opens the report in: a laptop's. */
export const WINDOW = { width: 1280, height: 1000 };

/** Scrolls each block that waits to be drawn into view, as a reader would, until none waits. */
export async function drawAll(page: Page): Promise<void> {
  for (;;) {
    const [block] = await page.$$eval('#grid tbody.pending', (tbs) => tbs.map((tb) => tb.getAttribute('data-b')));
    if (block === undefined) return;
    await page.locator(`#grid tbody[data-b="${block}"]`).scrollIntoViewIfNeeded();
    await page.waitForSelector(`#grid tbody[data-b="${block}"]:not(.pending)`);
  }
}

/**
 * With the grid scrolled to the top of the window and to its own first row: the rows seen whole,
 * below the column heads and above the bottom of both the grid's box and the window.
 */
export async function rowsInView(page: Page): Promise<number> {
  return Number(await page.evaluate(`(() => {
    const wrap = document.querySelector('.grid-wrap');
    wrap.scrollTop = 0;
    wrap.scrollIntoView({ block: 'start' });
    const heads = document.querySelector('#grid thead').getBoundingClientRect();
    const bottom = Math.min(wrap.getBoundingClientRect().bottom, window.innerHeight);
    return Array.from(document.querySelectorAll('#grid tr[data-r]')).filter((tr) => {
      const r = tr.getBoundingClientRect();
      return r.top >= heads.bottom - 0.5 && r.bottom <= bottom + 0.5;
    }).length;
  })()`));
}

/**
 * The column heads whose text does not show whole: text that overflows its cell (scrollWidth >
 * clientWidth, or the same in height for text turned on its side), or lies outside the cell's box
 * or the grid's, with the grid scrolled to its top. Each as its text.
 */
export async function cutHeads(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const wrap = document.querySelector('.grid-wrap');
    wrap.scrollTop = 0;
    const inside = (inner, outer) => inner.top >= outer.top - 0.5 && inner.bottom <= outer.bottom + 0.5
      && inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5;
    const box = wrap.getBoundingClientRect();
    return Array.from(document.querySelectorAll('#grid thead th')).filter((th) => {
      const range = document.createRange();
      range.selectNodeContents(th);
      const text = range.getBoundingClientRect();
      const cell = th.getBoundingClientRect();
      const visible = { top: box.top, bottom: box.bottom, left: -Infinity, right: Infinity };
      return th.scrollWidth > th.clientWidth || th.scrollHeight > th.clientHeight || !inside(text, cell) || !inside(text, visible);
    }).map((th) => th.textContent);
  })()`)) as string[];
}

export interface ListedCause {
  id: string;
  submissions: number;
  tests: number;
  names: string[];
}

/** The report's list of causes, row by row, as shown. */
export async function listedCauses(page: Page): Promise<ListedCause[]> {
  return page.$$eval('table.mistakes tbody tr', (rows) => rows.map((tr) => {
    const cells = tr.querySelectorAll('td');
    const names = tr.querySelector('details')?.childNodes[1]?.textContent ?? '';
    return {
      id: cells[0].textContent ?? '',
      submissions: Number(cells[1].textContent),
      tests: Number(cells[2].textContent),
      names: names ? names.split(', ') : [],
    };
  }));
}

/** The cause filter's options, "any" left out. */
export async function causeOptions(page: Page): Promise<string[]> {
  return page.$$eval('#f-cause option', (options) => options.slice(1).map((o) => o.textContent ?? ''));
}

/** The grid's data as the page holds it: each row's name and cells ([status, points, set of causes, reason]). */
export interface GridJson {
  tests: [string, number, number, string][];
  causes: [string, number][];
  sets: number[][];
  rows: [string, string, number, number, ([number, number, number, number] | null)[]][];
}

export async function gridJson(page: Page): Promise<GridJson> {
  return JSON.parse(String(await page.locator('#grid-data').textContent())) as GridJson;
}

/**
 * What the list of causes must be, from the grid's own cells: every test not passed has a cause,
 * and each cause's count of submissions is the number of rows with a cell of it.
 */
export function causesFromCells(data: GridJson): { uncaused: string[]; counts: Map<string, number> } {
  const uncaused: string[] = [];
  const counts = new Map<string, number>();
  for (const [name, , , , cells] of data.rows) {
    const had = new Set<string>();
    cells.forEach((cell, i) => {
      if (!cell || cell[0] === 0) return;
      if (cell[2] < 0) uncaused.push(`${name} · ${data.tests[i][0]}`);
      else for (const k of data.sets[cell[2]]) had.add(data.causes[k][0]);
    });
    for (const id of had) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return { uncaused, counts };
}
