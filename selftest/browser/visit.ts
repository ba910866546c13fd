/** What every browser self-test does: make a page with the project's own command, open it, and hear what it asked for and what went wrong. */
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';

export function run(script: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [RUN_TS, script, ...args],
      { cwd: PROJECT_ROOT, encoding: 'utf8' }, (err, stdout, stderr) => (err ? reject(new Error(`${script}: ${stderr || stdout}`)) : resolve()));
  });
}

export interface Visit {
  page: Page;
  /** Every URL the page asked for, its own included. */
  requests: string[];
  errors: string[];
}

export async function visit(browser: Browser, file: string, viewport = { width: 1280, height: 900 }): Promise<Visit> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
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

/** No console error, and no request but the page itself. */
export function expectQuiet({ requests, errors, page }: Visit): void {
  expect(errors).toEqual([]);
  expect(requests).toEqual([page.url()]);
}
