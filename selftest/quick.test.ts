/**
 * The quick tier's end-to-end part (`npm run selftest -- --quick`, beside lib's unit tests): the
 * edit loop's check that no guarantee is broken outright. Each is held in full elsewhere, on the
 * whole catalogue and every attack (docs/guarantees.md); here on a sample, in one pass each:
 * - the reference graded to full marks by the grader;
 * - a sample of the mistake catalogue, one per graded function and one that keeps state, through
 *   both paths (a real `vitest run` of the graded suite, and the grader): the same verdict and the
 *   same words, test by test;
 * - a sample of the attacks, in this machine's setting, in one batch beside a correct submission:
 *   each gets what it earns, the correct one full marks.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchOutcome } from '../lib/batch/gradeBatch';
import { loadCaseFixtures, prepareChild } from '../lib/grading/grade';
import type { SubmissionResult } from '../lib/model/result';
import { PROJECT_ROOT } from '../lib/paths';
import { containmentReport } from '../lib/sandbox/containment';
import { ASSIGNMENT } from '../tests/assignment';
import { GRADED_CASES } from '../tests/cases';
import { BUDGET_MS, expectationsFor, KILLS_THE_GRADER, MEMORY_BYTES, problems, TIMEOUT_MS } from './attacks/expectations';
import { attackFolder, runIsolated } from './attacks/folders';
import { SocketProbes } from './attacks/machine';
import { inOwnPidNamespace } from './attacks/ownPidNamespace';
import { BUGS } from './catalogue';
import { grade } from './grader/harness';
import { materialize, tempDir } from './grader/materialize';
import { expectSameEndings, SHARED_RUN_LIMIT_MS, sharedVitestRun } from './twoPathsKit';

const root = tempDir('quick');
const SETTING = containmentReport(prepareChild(MEMORY_BYTES)).setting;
const EXPECTED = expectationsFor(SETTING);

/**
 * One mistake per graded function, and one that keeps state between calls (the replay of the
 * graded call names it): the kinds of failure the two paths explain differently if they drift.
 */
const MISTAKES = ['softmax_unstable', 'scale_missing', 'causal_upper', 'heads_interleaved', 'mask_cached_by_shape'];
/** What a contained child can do to the grader, one of each kind: a hang, memory, an exit, a forged answer, a read of hidden values, a process, tampering. */
const ATTACKS = ['hang_in_softmax', 'memory_bomb_heap', 'exit_at_import', 'channel_forged_fields', 'read_expected_from_disk', 'spawn_process', 'patch_math', 'kill_parent']
  .filter((name) => EXPECTED[name] && !(KILLS_THE_GRADER()[SETTING] ?? []).includes(name));

describe('the reference', () => {
  it('gets full marks from the grader, hidden cases too', async () => {
    const everyCase = { cases: GRADED_CASES, fixtures: loadCaseFixtures(ASSIGNMENT, GRADED_CASES) };
    const result = await grade(materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), path.join(root, 'reference')), 'reference', everyCase);
    expect(result.cases.filter((c) => c.status !== 'passed').map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
    expect(result.cases).toHaveLength(GRADED_CASES.length);
  });
});

describe('a sample of the mistake catalogue, through both paths', () => {
  const folders = Object.fromEntries(MISTAKES.map((name) => {
    const entry = BUGS.find((b) => b.name === name);
    if (!entry) throw new Error(`${name} is not in the catalogue (selftest/catalogue): pick another for the quick tier`);
    return [name, materialize(entry.file, path.join(root, 'two-paths'))];
  }));
  const tested = sharedVitestRun(folders, 'quick');

  it.concurrent.each(MISTAKES)('%s: one verdict, the same words', async (name) => {
    const [graded, inSuite] = await Promise.all([grade(folders[name], name), tested(name)]);
    expect(graded.cases.some((c) => !c.hidden && c.status !== 'passed'), `${name} fails no visible test`).toBe(true);
    expectSameEndings(graded.cases, inSuite);
  }, SHARED_RUN_LIMIT_MS);
});

describe(`a sample of the attacks, in this machine's setting (${SETTING}), in one batch`, () => {
  const probes = new SocketProbes('quick');
  let batch: { value?: BatchOutcome; failure?: string };
  const result = (name: string): SubmissionResult | undefined => batch.value?.graded.find((r) => r.name === name);

  beforeAll(async () => {
    await probes.listen();
    const submissions = path.join(root, 'attacks');
    for (const name of ATTACKS) attackFolder(name, submissions, probes.addresses);
    materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, 'good');
    batch = await runIsolated<BatchOutcome>(
      ['batch', submissions, path.join(root, 'attacks-out'), String(TIMEOUT_MS), String(MEMORY_BYTES), '2', String(BUDGET_MS)],
      inOwnPidNamespace([]),
    );
  }, SHARED_RUN_LIMIT_MS);
  afterAll(() => probes.close());

  it('the grader completes, the correct submission keeps full marks, and no attack reached the self-test\'s sockets', () => {
    expect(batch.failure ?? '').toBe('');
    expect(batch.value!.graded.map((r) => r.name).sort()).toEqual([...ATTACKS, 'good'].sort());
    expect(result('good')!.cases.filter((c) => c.status !== 'passed').map((c) => c.name)).toEqual([]);
    expect(probes.reached()).toEqual([]);
  });

  it.each(ATTACKS)('%s earns only what it is owed', (name) => {
    expect(result(name), batch.failure).toBeDefined();
    // In a batch the cores are shared: an attack that must reach the memory cap first may meet its time limit instead.
    const expected = EXPECTED[name].alone ? { ...EXPECTED[name], statuses: [...EXPECTED[name].statuses, 'timeout' as const], reason: undefined } : EXPECTED[name];
    expect(problems(result(name)!, expected)).toEqual([]);
  });
});
