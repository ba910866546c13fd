/**
 * npm run selftest: the harness's own tests, what CI runs. Steps: typecheck, fixtures --check,
 * then the vitest self-tests (lib units, the truth of every fixture, the suite on the reference
 * and the stubs, the mistake catalogue). Ends with the plain total `N passed, M failed`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/paths';

const bin = (pkg: string, file: string) => path.join(PROJECT_ROOT, 'node_modules', pkg, file);

function step(title: string, args: string[]): boolean {
  console.log(`\n== ${title}`);
  const result = spawnSync(process.execPath, args, { cwd: PROJECT_ROOT, stdio: 'inherit' });
  return result.status === 0;
}

let passed = 0;
let failed = 0;
const count = (ok: boolean) => (ok ? passed++ : failed++);

count(step('typecheck (tsc)', [bin('typescript', 'bin/tsc'), '-p', '.']));
count(step('fixtures --check', [bin('ts-node', 'dist/bin.js'), 'scripts/fixtures.ts', '--check']));

const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'selftest-')), 'vitest.json');
step('self-tests (vitest)', [
  bin('vitest', 'vitest.mjs'), 'run', '--config', 'vitest.selftest.config.mts',
  '--reporter=default', '--reporter=json', `--outputFile.json=${report}`,
]);
if (fs.existsSync(report)) {
  const json = JSON.parse(fs.readFileSync(report, 'utf8')) as { numPassedTests: number; numFailedTests: number; numTotalTests: number };
  passed += json.numPassedTests;
  // A test that never reported (a crashed file) counts as failed.
  failed += json.numTotalTests - json.numPassedTests;
} else {
  console.error('self-tests: vitest wrote no report');
  failed++;
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
