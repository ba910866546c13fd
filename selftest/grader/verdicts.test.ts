/**
 * The mistake catalogue graded once through each path: the grader and the vitest suite (npm test)
 * on the visible cases, for the reference, the stubs and every submission of the catalogue. Both
 * must reach the same verdict on every visible case and name the same diagnosis in the same words:
 * one definition of what is graded, two ways to run it. The hidden cases, which npm test never
 * runs, are graded once too, in process with the suite's own pieces; what the catalogue's bugs must
 * show on every case (their own function only, their own mistake and nothing else) is checked on
 * these same gradings (catalogueClaims.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Submission } from '../../adapters';
import { PROJECT_ROOT } from '../../lib/paths';
import { GRADED_CASES } from '../../tests/cases';
import { BUGS, CORRECT, type CatalogueEntry } from '../catalogue';
import { gradeInProcess } from '../gradeInProcess';
import { runSuiteOn, type SuiteReport } from '../suiteRuns';
import type { SubmissionResult } from '../../lib/model/result';
import { describeCatalogueClaims, type Claim, type Ending } from './catalogueClaims';
import { grade } from './harness';
import { sayer } from './sayer';
import { materialize, tempDir } from './materialize';

const work = tempDir('verdicts');

/** The reference with one bracket left open: TypeScript's error recovery would run it (it once scored full marks); vitest cannot load it. */
function syntaxError(): string {
  const folder = path.join(work, 'syntax_error');
  fs.mkdirSync(folder, { recursive: true });
  const source = fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8');
  fs.writeFileSync(path.join(folder, 'index.ts'), source.replace('Q.shape[Q.ndim - 1]', 'Q.shape[Q.ndim - 1'));
  return folder;
}

const folders: Record<string, string> = {
  stubs: path.join(PROJECT_ROOT, 'student'),
  ...Object.fromEntries(
    [...CORRECT, ...BUGS].map((e) => [e.name, e.name === 'reference' ? path.join(PROJECT_ROOT, 'reference') : materialize(e.file, work, e.name)]),
  ),
  syntax_error: syntaxError(),
};

/** One `vitest run` of the graded suite over every folder (a project each), shared by the tests below, started by the first to ask. */
let reports: Promise<Record<string, SuiteReport>> | undefined;
const reportOf = async (name: string): Promise<SuiteReport> => (await (reports ??= runSuiteOn(folders, work, 'verdicts')))[name];

/** Each test's ending in the graded suite's run on `name`'s folder. */
async function vitestVerdicts(name: string): Promise<Record<string, Ending>> {
  const verdicts = (await reportOf(name)).testResults.flatMap((f) => f.assertionResults).map((a) => {
    const diagnosis = /^Diagnosis: (.*)$/m.exec(a.failureMessages.join('\n'))?.[1];
    return [a.title, { passed: a.status === 'passed', ...(diagnosis && { diagnosis }) }];
  });
  return Object.fromEntries(verdicts);
}

/**
 * Every folder graded, and each bug's hidden cases in process, a few at a time, from the first
 * test on: not tied to the tests' own slots, which wait on the shared vitest run, so that grading
 * and that run overlap.
 */
const GRADING_AT_ONCE = 4;
let slots = GRADING_AT_ONCE;
const queued: (() => void)[] = [];
async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (slots === 0) await new Promise<void>((resolve) => queued.push(resolve));
  else slots--;
  try {
    return await work();
  } finally {
    const next = queued.shift();
    if (next) next();
    else slots++;
  }
}
let graded: Map<string, Promise<SubmissionResult>> | undefined;
function gradedOf(name: string): Promise<SubmissionResult> {
  graded ??= new Map(Object.entries(folders).map(([n, dir]) => {
    const result = inTurn(() => grade(dir, n));
    // Its own test reports a failure; until that test awaits it, it is not an unhandled one.
    result.catch(() => undefined);
    // Its hidden cases (a bug's) queued right behind it: they run in process, on this worker's one
    // thread, and when only the tests that read them asked, they ran after every grading, alone.
    const bug = BUGS.find((e) => e.name === n);
    if (bug) hiddenOf(bug).catch(() => undefined);
    return [n, result];
  }));
  return graded.get(name)!;
}

const load = async (file: string) => (await import(file)) as Partial<Submission>;
const HIDDEN = GRADED_CASES.filter((c) => c.hidden);
/** Each entry's hidden cases graded in process once: a module may keep state between calls, so a second grading would not be the first. */
const hidden = new Map<string, Promise<Claim[]>>();
function hiddenOf(entry: CatalogueEntry): Promise<Claim[]> {
  // The probes get an instance of their own (a query makes the module a new one), as in npm test and the grader.
  if (!hidden.has(entry.name)) {
    hidden.set(entry.name, inTurn(() => Promise.all([load(entry.file), load(`${entry.file}?probe`)]).then(([impl, probed]) => gradeInProcess(impl, entry.name, HIDDEN, undefined, probed))));
  }
  return hidden.get(entry.name)!;
}

const submissions = Object.keys(folders).filter((name) => name !== 'syntax_error');
/** A test waits for the shared run and the grading of every folder: as long as the whole file may take on a loaded machine. */
const SHARED_RUN_LIMIT_MS = 900_000;

describe('grader and vitest agree', () => {
  it.concurrent.each(submissions)('%s', async (name) => {
    const [graded, tested] = await Promise.all([gradedOf(name), vitestVerdicts(name)]);
    const fromGrader = Object.fromEntries(
      graded.cases.map((c) => [c.name, { passed: c.status === 'passed', ...(c.diagnosis && { diagnosis: c.diagnosis.message }) }]),
    );
    expect(fromGrader).toEqual(tested);
  }, SHARED_RUN_LIMIT_MS);
});

describe('a file that does not parse', () => {
  it('fails every test under vitest and is a load error for every case in the grader, with its line', async () => {
    const [graded, tested, report] = await Promise.all([gradedOf('syntax_error'), vitestVerdicts('syntax_error'), reportOf('syntax_error')]);
    expect(Object.values(tested).filter((ending) => ending.passed)).toEqual([]);
    expect(report.success).toBe(false);
    expect(report.numFailedTestSuites).toBeGreaterThan(0);
    expect(graded.score).toBe(0);
    expect(sayer(graded.cases).reason).toMatch(/^the submission failed to load: syntax error at syntax_error\/index\.ts:\d+:\d+: /);
  }, SHARED_RUN_LIMIT_MS);
});

describeCatalogueClaims({ graded: gradedOf, tested: vitestVerdicts, hidden: hiddenOf }, SHARED_RUN_LIMIT_MS);
