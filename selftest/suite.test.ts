/**
 * The real student command, `vitest run` on tests/, against the reference (everything passes) and
 * against the stubs (everything fails, as not implemented), plus the `-t scaled_dot_product`
 * filter students use, on a known mistake whose failures show its diagnosis.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../lib/paths';
import { didNotLoad, didNotReturn, notRunAfterHang, notRunAfterLoad, PER_TEST_LIMIT_MS } from '../lib/grading/hangWords';
import { stoppedWords } from '../lib/suite/loadWatchdog';
import { grade } from './grader/harness';
import { sayer } from './grader/sayer';
import { visibleCases } from '../tests/cases';
import { MISTAKES } from '../tests/diagnosis/catalogue';
import { BUGS } from './catalogue';
import { materialize } from './grader/materialize';

interface JsonReport {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
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

const assertions = (report: JsonReport) => report.testResults.flatMap((f) => f.assertionResults);

describe('the graded suite (npm test)', () => {
  it('passes every visible case on the reference', () => {
    const report = runSuite('reference');
    expect(report.numTotalTests).toBe(visibleCases().length);
    expect(assertions(report).filter((a) => a.status !== 'passed').map((a) => a.title)).toEqual([]);
  });

  it('fails every case on the stubs, each as not implemented', () => {
    const report = runSuite('student');
    expect(report.numFailedTests).toBe(visibleCases().length);
    for (const a of assertions(report)) expect(a.failureMessages.join('\n')).toMatch(/is not implemented yet: edit student\/index\.ts/);
  });

  it('a causalMask that never returns: its tests fail in the grader\'s words, the others pass, and the run ends', () => {
    const dir = materialize(path.join(__dirname, 'grader', 'misbehaving', 'loop_in_causal_mask.ts'), fs.mkdtempSync(path.join(os.tmpdir(), 'suite-')));
    const report = runSuite(dir);
    const failed = assertions(report).filter((a) => a.status !== 'passed');
    expect(failed.map((a) => a.title)).toEqual(visibleCases('causal_mask').map((c) => c.name));
    const [first, ...rest] = failed;
    expect(first.failureMessages.join('\n')).toContain(didNotReturn('causalMask', PER_TEST_LIMIT_MS));
    for (const a of rest) expect(a.failureMessages.join('\n')).toContain(notRunAfterHang('causalMask', PER_TEST_LIMIT_MS, first.title));
  });

  it.each([
    ['throws something not an Error', 'throws_object_at_import', 'the submission failed to load: thrown value: threw an object instead of an Error'],
    ['calls process.exit', 'exit_at_import', 'the process running the submission died while loading the submission: it exited with code 3 (process.exit, out of memory?)'],
  ])('a file that %s while it loads: every test fails, the first with the grader\'s reason, the others naming it (with -t, the first that ran)', async (_, name, words) => {
    const dir = materialize(path.join(__dirname, 'grader', 'misbehaving', `${name}.ts`), fs.mkdtempSync(path.join(os.tmpdir(), 'suite-')));
    const graded = await grade(dir, name);
    const first = sayer(graded.cases);
    expect(first.reason).toBe(words);
    const report = runSuite(dir);
    expect(report.numFailedTests).toBe(visibleCases().length);
    for (const a of assertions(report)) {
      const said = graded.cases.find((c) => c.name === a.title)!.reason;
      expect(a.failureMessages.join('\n'), a.title).toBe(`LoadFailure: ${said}`);
    }
    const filtered = assertions(runSuite(dir, ['-t', 'multihead'])).filter((a) => a.status === 'failed');
    expect(filtered.map((a) => a.title)).toEqual(visibleCases('multihead_self_attention').map((c) => c.name));
    expect(filtered.map((a) => a.failureMessages.join('\n'))).toEqual(filtered.map((a, i) => `LoadFailure: ${i === 0 ? words : notRunAfterLoad(filtered[0].title)}`));
  });

  it("-t multihead on an attention that throws what cannot be read: the diagnosis runs the attention tests itself, reads their errors as the grader does, and says what the grader says", async () => {
    const name = 'attention_throws_getters';
    const dir = materialize(path.join(__dirname, 'grader', 'misbehaving', `${name}.ts`), fs.mkdtempSync(path.join(os.tmpdir(), 'suite-')));
    const fromGrader = (await grade(dir, name)).cases.filter((c) => c.fn === 'multihead_self_attention');
    const ran = assertions(runSuite(dir, ['-t', 'multihead'])).filter((a) => a.status !== 'skipped');
    expect(ran.map((a) => a.title).sort()).toEqual(fromGrader.map((c) => c.name).sort());
    for (const a of ran) {
      const diagnosis = fromGrader.find((c) => c.name === a.title)!.diagnosis?.message;
      expect(diagnosis, a.title).toMatch(/fails its own tests/);
      expect(/^Diagnosis: (.*)$/m.exec(a.failureMessages.join('\n'))?.[1], a.title).toBe(diagnosis);
    }
  });

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

describe('a file whose top level never finishes: npm test stops in the grader\'s words instead of hanging', () => {
  // The test's thread is stuck in the file's top level, so vitest cannot report: npm test says the
  // grader's reason on stderr and exits with an error (lib/suite/loadWatchdog.ts).
  it.concurrent.each([
    ['spins', 'hang_at_import'],
    ['waits', 'sleep_at_import'],
  ])('one that %s (%s)', async (_, name) => {
    const dir = materialize(path.join(__dirname, 'grader', 'misbehaving', `${name}.ts`), fs.mkdtempSync(path.join(os.tmpdir(), 'suite-')));
    const run = await studentRun(dir, GUARD_MS);
    expect(run.guarded, run.output).toBe(false);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain(stoppedWords(`${name}/index.ts`, PER_TEST_LIMIT_MS).trim());
    // The grader (a shorter limit, so that this test does not wait 10 s more) says it once, every case timed out.
    const graded = await grade(dir, name, { timeoutMs: 700 });
    const first = sayer(graded.cases);
    expect(`${first.status}: ${first.reason}`).toBe(`timeout: ${didNotLoad(700)}`);
  }, GUARD_MS + 60_000);
});

