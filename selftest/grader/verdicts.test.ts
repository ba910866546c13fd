/**
 * The grader and the vitest suite must reach the same verdict on every visible case, for the
 * reference, the stubs and every submission of the mistake catalogue, and name the same
 * diagnosis in the same words: one definition of what is graded, two ways to run it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/paths';
import { BUGS, CORRECT } from '../catalogue';
import { grade } from './harness';
import { materialize, tempDir } from './materialize';

const work = tempDir('verdicts');

/** What a test ended with: passed, and the diagnosis a failure names (its message), if any. */
type Ending = { passed: boolean; diagnosis?: string };

/** Each test's ending from a real `vitest run` of the graded suite on `dir`. */
function vitestVerdicts(dir: string, name: string): Promise<Record<string, Ending>> {
  const report = path.join(work, `${name}.vitest.json`);
  const vitest = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  const child = spawn(process.execPath, [vitest, 'run', '--reporter=json', `--outputFile=${report}`], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ATTENTION_SUBMISSION: dir },
    stdio: 'ignore',
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => {
      const json = JSON.parse(fs.readFileSync(report, 'utf8')) as {
        testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
      };
      const verdicts = json.testResults.flatMap((f) => f.assertionResults).map((a) => {
        const diagnosis = /^Diagnosis: (.*)$/m.exec(a.failureMessages.join('\n'))?.[1];
        return [a.title, { passed: a.status === 'passed', ...(diagnosis && { diagnosis }) }];
      });
      resolve(Object.fromEntries(verdicts));
    });
  });
}

const submissions: [string, () => string][] = [
  ['stubs', () => path.join(PROJECT_ROOT, 'student')],
  ...[...CORRECT, ...BUGS].map((e): [string, () => string] => [
    e.name,
    () => (e.name === 'reference' ? path.join(PROJECT_ROOT, 'reference') : materialize(e.file, work, e.name)),
  ]),
];

describe('grader and vitest agree', () => {
  it.concurrent.each(submissions)('%s', async (name, dir) => {
    const folder = dir();
    const [graded, tested] = await Promise.all([grade(folder, name), vitestVerdicts(folder, name)]);
    const fromGrader = Object.fromEntries(
      graded.cases.map((c) => [c.name, { passed: c.status === 'passed', ...(c.diagnosis && { diagnosis: c.diagnosis.message }) }]),
    );
    expect(fromGrader).toEqual(tested);
  });
});

describe('a file that does not parse', () => {
  // TypeScript's error recovery would run this file (it once scored full marks); vitest cannot load it.
  it('fails every test under vitest and is a load error for every case in the grader, with its line', async () => {
    const folder = path.join(work, 'syntax_error');
    fs.mkdirSync(folder, { recursive: true });
    const source = fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8');
    fs.writeFileSync(path.join(folder, 'index.ts'), source.replace('Q.shape[Q.ndim - 1]', 'Q.shape[Q.ndim - 1'));
    const [graded, tested] = await Promise.all([grade(folder, 'syntax_error'), vitestVerdicts(folder, 'syntax_error')]);
    expect(Object.values(tested).filter((ending) => ending.passed)).toEqual([]);
    const report = JSON.parse(fs.readFileSync(path.join(work, 'syntax_error.vitest.json'), 'utf8')) as { success: boolean; numFailedTestSuites: number };
    expect(report.success).toBe(false);
    expect(report.numFailedTestSuites).toBeGreaterThan(0);
    expect(graded.score).toBe(0);
    for (const c of graded.cases) expect(c.reason).toMatch(/^the submission failed to load: syntax error at syntax_error\/index\.ts:\d+:\d+: /);
  });
});
