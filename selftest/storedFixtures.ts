/**
 * Each stored fixture read once for every in-process grading of a test file, as the grader reads
 * them once per run (loadCaseFixtures): every call gets copies of its inputs (lib/model/invoke.ts
 * copyInputs, through calls.ts and lib/grading/inProcess.ts), so no implementation can change what
 * the next one meets. Read afresh per case, the manifest alone was parsed thousands of times by
 * verdicts.test.ts.
 */
import type { GradedCase } from '../lib/assignment/cases';
import { loadFixture, type LoadedFixture } from '../lib/model/fixtures';
import { readManifest, type Manifest } from '../lib/model/manifest';

const stored = new Map<string, LoadedFixture>();
let manifest: Manifest | undefined;

/** `graded`'s stored fixture, read on first use. */
export function storedFixture(graded: Pick<GradedCase, 'fixture'>): LoadedFixture {
  let fixture = stored.get(graded.fixture);
  if (!fixture) stored.set(graded.fixture, (fixture = loadFixture(graded.fixture, { manifest: (manifest ??= readManifest()) })));
  return fixture;
}
