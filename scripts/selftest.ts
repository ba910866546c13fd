/**
 * npm run selftest: the harness's own tests, what CI runs. Steps: typecheck, fixtures --check,
 * the vitest self-tests (lib units, the truth of every fixture, the suite on the reference and
 * the stubs, the mistake catalogue), then the HTML reports in a browser when Debian's Chromium is
 * installed (.ci/run installs it). Ends with the plain total `N passed, M failed`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/paths';
import { CHROMIUM_PATH } from '../selftest/browser/chromium';

const bin = (pkg: string, file: string) => path.join(PROJECT_ROOT, 'node_modules', pkg, file);

function step(title: string, args: string[]): boolean {
  console.log(`\n== ${title}`);
  const result = spawnSync(process.execPath, args, { cwd: PROJECT_ROOT, stdio: 'inherit' });
  return result.status === 0;
}

let passed = 0;
let failed = 0;
const count = (ok: boolean) => (ok ? passed++ : failed++);

/** A vitest run whose tests count one each, read from its JSON report. */
function vitestStep(title: string, config: string): void {
  const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'selftest-')), 'vitest.json');
  step(title, [bin('vitest', 'vitest.mjs'), 'run', '--config', config, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`]);
  if (!fs.existsSync(report)) {
    console.error(`${title}: vitest wrote no report`);
    failed++;
    return;
  }
  const json = JSON.parse(fs.readFileSync(report, 'utf8')) as { numPassedTests: number; numTotalTests: number };
  passed += json.numPassedTests;
  // A test that never reported (a crashed file) counts as failed.
  failed += json.numTotalTests - json.numPassedTests;
}

count(step('typecheck (tsc)', [bin('typescript', 'bin/tsc'), '-p', '.']));
count(step('typecheck student/ (tsc)', [bin('typescript', 'bin/tsc'), '-p', 'student']));
count(step('fixtures --check', [bin('ts-node', 'dist/bin.js'), 'scripts/fixtures.ts', '--check']));
vitestStep('self-tests (vitest)', 'vitest.selftest.config.mts');
if (fs.existsSync(CHROMIUM_PATH)) vitestStep('reports in a browser (vitest, Chromium)', 'vitest.browser.config.mts');
else console.log(`\n== reports in a browser: skipped, no ${CHROMIUM_PATH} (apt-get install -y chromium)`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
