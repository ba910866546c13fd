/**
 * One sequence, one set of inputs, two paths (issue 29): `npm test` and the grader make the same
 * calls in the same order, each on its own copy of the inputs, and read their checks from their
 * own pristine copies. Submissions that keep state between calls, or change their inputs in place,
 * are graded by both: every visible test must pass or fail alike, a failure say the grader's reason
 * and diagnosis in npm test's message, and each function that changed its inputs get the same note.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXPORT_NAMES } from '../adapters';
import { didNotReturn, PER_TEST_LIMIT_MS } from '../lib/grading/hangWords';
import type { CaseResult } from '../lib/model/result';
import { visibleCases, type GradedFunction } from '../tests/cases';
import { grade } from './grader/harness';
import { materialize, tempDir } from './grader/materialize';
import { expectSameEndings, ownReason, SHARED_RUN_LIMIT_MS, sharedVitestRun, type Tested } from './twoPathsKit';

const work = tempDir('two-paths');

/** Each function's note about changed inputs: the grader's (one per function), npm test's first. */
function notesOf(graded: { feedback: string[] }, tested: Record<string, Tested>): { grader: string[]; vitest: string[] } {
  const firsts = new Map<GradedFunction, string>();
  for (const c of visibleCases()) {
    const note = tested[c.name]?.notes[0];
    if (note && !firsts.has(c.fn)) firsts.set(c.fn, note);
  }
  return { grader: graded.feedback.filter((line) => line.startsWith('Note (no points)')), vitest: [...firsts.values()] };
}

interface Case {
  name: string;
  /** The visible tests that must fail (in both paths); every other one passes. */
  fails: string[];
  /** A word every note about changed inputs must hold, per function that changes its inputs. */
  changes?: Partial<Record<GradedFunction, string>>;
  /** What every failure's own reason says (its diagnosis aside). */
  reason?: RegExp;
  /** Files beside index.ts besides the usual helpers. */
  helpers?: string[];
  /** A test reaches the per-test limit: the grader's is short (HANG_LIMIT_MS), npm test's its own (10 s). */
  hangs?: boolean;
}

const attentionNames = visibleCases('scaled_dot_product_attention').map((c) => c.name);
const CASES: Case[] = [
  { name: 'mask_rewritten_in_place', fails: [], changes: { scaled_dot_product_attention: '(mask, first at' } },
  { name: 'softmax_in_place', fails: [], changes: { softmax: '(x, first at' } },
  { name: 'global_call_count', fails: ['test_causal_mask', 'test_causal_mask_large'] },
  // Whatever their diagnoses say of code whose answers change as it is probed, they say it alike.
  { name: 'state_in_helper', fails: attentionNames.slice(8), reason: /values out of tolerance/, helpers: ['counter.ts'] },
  // Its count lives in the realm: both paths probe a new instance in the realm the graded calls ran in.
  { name: 'realm_call_count', fails: attentionNames.slice(8), reason: /values out of tolerance/ },
  { name: 'tired_of_probes', fails: attentionNames, reason: /values out of tolerance/ },
  // Keyed by shape, its cache meets the case called again with the same shapes and new values.
  { name: 'mhsa_cache_by_shape', fails: ['test_multihead_self_attention_called_again'] },
  { name: 'big_answer', fails: attentionNames, reason: /^expected shape \[[\d,]+\], got \[50000000\]$/ },
  // An Error whose message never returns: both paths read it once, under the call's limit.
  {
    name: 'thrown_getters',
    fails: visibleCases('causal_mask').map((c) => c.name),
    reason: /^`causalMask` did not return within 10 s|^not run: `causalMask` did not return within 10 s/,
    hangs: true,
  },
  {
    name: 'exits_in_call',
    fails: visibleCases('causal_mask').map((c) => c.name),
    reason: /^the process running the submission died: it exited with code 3 |^not run: the process running `causalMask` ended in test_causal_mask \(it exited with code 3\)/,
  },
  { name: 'prints_forever', fails: visibleCases('softmax').map((c) => c.name), reason: /did not return within 10 s.*a flood of output|not run: `softmax` did not return within 10 s/, hangs: true },
];

const folders = Object.fromEntries(CASES.map(({ name, helpers = [] }) => {
  const dir = materialize(path.join(__dirname, 'twoPaths', `${name}.ts`), work, name);
  for (const helper of helpers) fs.copyFileSync(path.join(__dirname, 'twoPaths', helper), path.join(dir, helper));
  return [name, dir];
}));
const vitestRun = sharedVitestRun(folders, 'two-paths');

/**
 * The grader's limit for a submission that hangs: a hang is one at any limit, and npm test's, which
 * cannot be set, already spends its 10 s. Far above what any passing call of these takes.
 */
const HANG_LIMIT_MS = 2000;
/** How the hang words name a limit ("within 10 s"). */
const within = (ms: number) => /within [\d.]+ s/.exec(didNotReturn('f', ms))![0];
/** The grader's ending in the words it says at npm test's limit: the same words but for the figure of the limit. */
const atTestLimit = (c: CaseResult): CaseResult => ({
  ...c,
  reason: c.reason.replaceAll(within(HANG_LIMIT_MS), within(PER_TEST_LIMIT_MS)),
});

describe('npm test and the grader make the same calls on their own copies, and say the same', () => {
  it.concurrent.each(CASES)('$name', async ({ name, fails, changes = {}, reason, hangs }) => {
    const [result, tested] = await Promise.all([grade(folders[name], name, hangs ? { timeoutMs: HANG_LIMIT_MS } : {}), vitestRun(name)]);
    const graded = { ...result, cases: result.cases.map(atTestLimit) };
    expectSameEndings(graded.cases, tested);
    expect(graded.cases.filter((c) => c.status !== 'passed').map((c) => c.name)).toEqual(fails);
    if (reason) for (const c of graded.cases.filter((c) => c.status !== 'passed')) expect(ownReason(c), c.name).toMatch(reason);
    const notes = notesOf(graded, tested);
    expect(notes.vitest).toEqual(notes.grader);
    expect(notes.grader).toHaveLength(Object.keys(changes).length);
    for (const [fn, word] of Object.entries(changes)) expect(notes.grader.find((n) => n.includes(`\`${EXPORT_NAMES[fn as GradedFunction]}\``)), fn).toContain(word);
  }, SHARED_RUN_LIMIT_MS);
});
