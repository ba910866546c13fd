/**
 * The graded suite (npm test) against the reference (everything passes), the stubs (everything
 * fails, as not implemented) and files that fail to load, with and without `-t multihead`: read
 * from two shared runs of the graded suite, one unfiltered and one filtered, a submission each
 * (suiteRuns.ts). The real student command, `vitest run`, runs with the `-t scaled_dot_product`
 * filter students use, on a known mistake whose failures show its diagnosis, and on a file whose
 * top level never finishes. (A call that never returns fails its tests in the grader's words and
 * the run goes on: selftest/twoPaths.test.ts, thrown_getters and prints_forever, both paths.)
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, RUN_TS } from '../lib/paths';
import { didNotLoad, notRunAfterLoad, PER_TEST_LIMIT_MS } from '../lib/grading/hangWords';
import { stoppedWords } from '../lib/suite/loadWatchdog';
import { grade } from './grader/harness';
import { sayer } from './grader/sayer';
import { visibleCases } from '../tests/cases';
import { MISTAKES } from '../tests/diagnosis/catalogue';
import { BUGS } from './catalogue';
import { materialize, tempDir } from './grader/materialize';
import { runSuiteOn, type SuiteReport } from './suiteRuns';

interface JsonReport {
  testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
}

function runSuite(submission: string, extra: string[] = []): JsonReport {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'suite-')), 'report.json');
  const vitest = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  spawnSync(process.execPath, [vitest, 'run', '--reporter=json', `--outputFile=${out}`, ...extra], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ATTENTION_SUBMISSION: submission },
    encoding: 'utf8',
  });
  return JSON.parse(fs.readFileSync(out, 'utf8')) as JsonReport;
}

const assertions = (report: JsonReport | SuiteReport) => report.testResults.flatMap((f) => f.assertionResults);

const work = tempDir('suite');
const written = new Map<string, string>();
/** A submission of grader/misbehaving/ written once to a folder of its name. */
function misbehaving(name: string): string {
  if (!written.has(name)) written.set(name, materialize(path.join(__dirname, 'grader', 'misbehaving', `${name}.ts`), work, name));
  return written.get(name)!;
}
const loadFailures = ['throws_object_at_import', 'exit_at_import'];
/** The folders of each shared run: unfiltered, and with `-t multihead`. */
const FOLDERS = {
  all: ['reference', 'stubs', ...loadFailures],
  multihead: [...loadFailures, 'attention_throws_getters'],
};
const folderOf = (name: string) => ({ reference: path.join(PROJECT_ROOT, 'reference'), stubs: path.join(PROJECT_ROOT, 'student') })[name] ?? misbehaving(name);
/** Each shared run of the graded suite, started by the first test to ask, read by the rest. */
const runs: Partial<Record<keyof typeof FOLDERS, Promise<Record<string, SuiteReport>>>> = {};
const shared = (filter: keyof typeof FOLDERS) =>
  (runs[filter] ??= runSuiteOn(Object.fromEntries(FOLDERS[filter].map((n) => [n, folderOf(n)])), work, filter, filter === 'all' ? [] : ['-t', 'multihead']));
/** A test that waits for a shared run on a loaded machine. */
const SHARED_RUN_LIMIT_MS = 600_000;

describe('the graded suite (npm test)', () => {
  it('passes every visible case on the reference', async () => {
    const report = (await shared('all')).reference;
    expect(assertions(report)).toHaveLength(visibleCases().length);
    expect(assertions(report).filter((a) => a.status !== 'passed').map((a) => a.title)).toEqual([]);
  }, SHARED_RUN_LIMIT_MS);

  it('fails every case on the stubs, each as not implemented', async () => {
    const report = (await shared('all')).stubs;
    expect(assertions(report).filter((a) => a.status === 'failed')).toHaveLength(visibleCases().length);
    for (const a of assertions(report)) expect(a.failureMessages.join('\n')).toMatch(/is not implemented yet: edit student\/index\.ts/);
  }, SHARED_RUN_LIMIT_MS);

  it.each([
    ['throws something not an Error', 'throws_object_at_import', 'the submission failed to load: thrown value: threw an object instead of an Error'],
    ['calls process.exit', 'exit_at_import', 'the process running the submission died while loading the submission: it exited with code 3 (process.exit, out of memory?)'],
  ])('a file that %s while it loads: every test fails, the first with the grader\'s reason, the others naming it (with -t, the first that ran)', async (_, name, words) => {
    const graded = await grade(folderOf(name), name);
    const first = sayer(graded.cases);
    expect(first.reason).toBe(words);
    const report = (await shared('all'))[name];
    expect(assertions(report).filter((a) => a.status === 'failed')).toHaveLength(visibleCases().length);
    for (const a of assertions(report)) {
      const said = graded.cases.find((c) => c.name === a.title)!.reason;
      expect(a.failureMessages.join('\n'), a.title).toBe(`LoadFailure: ${said}`);
    }
    const filtered = assertions((await shared('multihead'))[name]).filter((a) => a.status === 'failed');
    expect(filtered.map((a) => a.title)).toEqual(visibleCases('multihead_self_attention').map((c) => c.name));
    expect(filtered.map((a) => a.failureMessages.join('\n'))).toEqual(filtered.map((a, i) => `LoadFailure: ${i === 0 ? words : notRunAfterLoad(filtered[0].title)}`));
  }, SHARED_RUN_LIMIT_MS);

  it("-t multihead on an attention that throws what cannot be read: the diagnosis runs the attention tests itself, reads their errors as the grader does, and says what the grader says", async () => {
    const name = 'attention_throws_getters';
    const fromGrader = (await grade(folderOf(name), name)).cases.filter((c) => c.fn === 'multihead_self_attention');
    const ran = assertions((await shared('multihead'))[name]).filter((a) => a.status !== 'skipped');
    expect(ran.map((a) => a.title).sort()).toEqual(fromGrader.map((c) => c.name).sort());
    for (const a of ran) {
      const diagnosis = fromGrader.find((c) => c.name === a.title)!.diagnosis?.message;
      expect(diagnosis, a.title).toMatch(/fails its own tests/);
      expect(/^Diagnosis: (.*)$/m.exec(a.failureMessages.join('\n'))?.[1], a.title).toBe(diagnosis);
    }
  }, SHARED_RUN_LIMIT_MS);

  it('-t scaled_dot_product runs exactly the attention cases, and a failure shows its diagnosis (scale_missing)', () => {
    const entry = BUGS.find((b) => b.name === 'scale_missing')!;
    const dir = materialize(entry.file, fs.mkdtempSync(path.join(os.tmpdir(), 'suite-')));
    const ran = assertions(runSuite(dir, ['-t', 'scaled_dot_product'])).filter((a) => a.status !== 'skipped');
    expect(ran.map((a) => a.title).sort()).toEqual(visibleCases('scaled_dot_product_attention').map((c) => c.name).sort());
    expect(ran.length).toBeGreaterThanOrEqual(6);
    const messages = ran.flatMap((a) => a.failureMessages);
    expect(messages.some((m) => m.includes(`Diagnosis: ${MISTAKES.find((m) => m.id === entry.mistake)!.message}`)), messages.join('\n')).toBe(true);
  });
});

/** `npm test` on `dir` as a student runs it: how it ended and what it printed. A run still going after `guardMs` is stopped (`guarded`). */
function studentRun(dir: string, guardMs: number): Promise<{ code: number | null; guarded: boolean; output: string }> {
  const vitest = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  return new Promise((resolve) => {
    execFile(process.execPath, [vitest, 'run'], { cwd: PROJECT_ROOT, env: { ...process.env, ATTENTION_SUBMISSION: dir }, timeout: guardMs, encoding: 'utf8' }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, guarded: Boolean(err?.killed), output: `${stdout}\n${stderr}` });
    });
  });
}

/** Far beyond the 4 × 10 s a top level that waits may take: a run still going then never ends. */
const GUARD_MS = 240_000;

/**
 * lib/suite/loadWatchdog.ts's watchedLoad in a process of its own, at `limitMs`, over an import
 * that waits for ever in this thread: how it ended and what it wrote on stderr.
 */
function watchedForEver(limitMs: number): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  const stuck = 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);';
  const script = `require(${JSON.stringify(path.join(PROJECT_ROOT, 'lib', 'suite', 'loadWatchdog'))}).watchedLoad(async () => { ${stuck} }, 'stuck/index.ts', ${limitMs});`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-r', RUN_TS, '-e', script], { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    const guard = setTimeout(() => child.kill('SIGKILL'), GUARD_MS);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stderr });
    });
  });
}

/** The grader, at a short limit (a hang is one at any limit), on a file whose top level never finishes: it says so once, every case timed out. */
async function expectGraderTimesOut(name: string): Promise<void> {
  const graded = await grade(misbehaving(name), name, { timeoutMs: 700 });
  const first = sayer(graded.cases);
  expect(`${first.status}: ${first.reason}`).toBe(`timeout: ${didNotLoad(700)}`);
}

describe('a file whose top level never finishes: npm test stops in the grader\'s words instead of hanging', () => {
  // The test's thread is stuck in the file's top level, so vitest cannot report: npm test says the
  // grader's reason on stderr and exits with an error (lib/suite/loadWatchdog.ts). Its limit is the
  // grader's per-test limit, which npm test does not let one set: the real command runs once, on a
  // top level that spins (stopped by the thread's CPU time, 10 s, where a wait is stopped by the wall
  // clock only at 4 × 10 s, longer still on a loaded machine); the watcher's wall clock is held at a
  // short limit in a process of its own.
  it.concurrent('npm test on one that spins; the grader says it once, every case timed out (hang_at_import)', async () => {
    const name = 'hang_at_import';
    const run = await studentRun(misbehaving(name), GUARD_MS);
    expect(run.guarded, run.output).toBe(false);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain(stoppedWords(`${name}/index.ts`, PER_TEST_LIMIT_MS).trim());
    await expectGraderTimesOut(name);
  }, GUARD_MS + 60_000);

  it.concurrent('the watcher stops one that waits, at any limit; the grader says it once, every case timed out (sleep_at_import)', async () => {
    const LIMIT_MS = 300;
    const run = await watchedForEver(LIMIT_MS);
    expect(run.signal, run.stderr).toBe('SIGTERM');
    expect(run.stderr).toContain(stoppedWords('stuck/index.ts', LIMIT_MS).trim());
    await expectGraderTimesOut('sleep_at_import');
  }, GUARD_MS + 60_000);
});
