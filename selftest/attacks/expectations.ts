/**
 * What each attack of selftest/attacks/ must end as, in each containment setting the grader can
 * find itself in (lib/sandbox/containment.ts), and the checks every graded result must pass. Both
 * attacks.test.ts (this machine's own setting) and settings.test.ts (the others, simulated) read it.
 *
 * An attack a setting cannot contain is listed in UNCONTAINED with the reason, and docs/security.md
 * says the same (a self-test holds the two together); every other attack must be held.
 */
import { firstToSay, notRunAfterLoad, saidBy } from '../../lib/model/notRun';
import type { CaseResult, CaseStatus, SubmissionResult } from '../../lib/model/result';
import type { ContainmentReport } from '../../lib/model/containmentReport';
import { syscallFilter } from '../../lib/sandbox/childLayers';
import { permissionCoversNetwork } from '../../lib/sandbox/containment';
import { findTools } from '../../lib/sandbox/probeLayers';
import type { GradedFunction } from '../../tests/cases';
import type { Layout } from './layouts';

export type Setting = ContainmentReport['setting'];

export const TIMEOUT_MS = 2000;
/** The grader's own cap (prepareChild), set low enough that a memory bomb hits it well within the timeout. */
export const MEMORY_BYTES = 256 * 1024 ** 2;
export const OUTPUT_CAP = 4096;
/** A submission's whole time budget in these tests: well past what an honest submission needs, well short of the default. */
export const BUDGET_MS = 30_000;
/** Set in the grader's process: stands for the tokens and keys a grading machine's environment holds. */
export const SECRET = { ATTACK_GRADER_SECRET: 'not-for-students' };

export interface Expectation {
  /** Functions the submission computes honestly: all their tests must pass. */
  honest: readonly GradedFunction[];
  /** How every other test must end; it earns nothing. */
  statuses: readonly CaseStatus[];
  /** Their reasons must match this… */
  reason?: RegExp;
  /** …and never this: the attack says so in its error when it got through. */
  notReason?: RegExp;
  /**
   * Graded alone, after the others: it changes files the others read, or it must reach the memory
   * cap before the timeout and so needs the cores to itself.
   */
  alone?: true;
  /**
   * Its time limit per test when graded alone, if not TIMEOUT_MS. Filling the heap up to the cap
   * costs V8 one to two seconds of CPU (its GC threads' included, which the grader charges), as
   * close to TIMEOUT_MS as to fail now and then: a memory bomb gets five times that. A bomb that no
   * cap stops still spins to this limit and times out, which its statuses refuse.
   */
  timeoutMs?: number;
  /** Graded on its own on the hidden cases as well (the batches grade the visible ones). */
  hidden?: true;
  /** Honest functions whose tests may also end as timeouts of the submission's budget, spent by the others. */
  budgeted?: readonly GradedFunction[];
  /** An attack this setting cannot contain: any test may pass (its code computes), none earns more. */
  mayPass?: true;
  /** Graded with --carry-forward, on the hidden cases as well: it tries to have points carried that its code did not earn. */
  carryForward?: true;
  /** The submission's notes (its feedback) must match this. */
  notes?: RegExp;
}

export const FUNCTIONS: readonly GradedFunction[] = ['softmax', 'scaled_dot_product_attention', 'causal_mask', 'multihead_self_attention'];
const allBut = (...attacked: GradedFunction[]) => FUNCTIONS.filter((f) => !attacked.includes(f));
const WRONG: readonly CaseStatus[] = ['failed', 'error'];
const REFUSED = { honest: [], statuses: ['refused'], reason: /may not use/ } as const;
/** Correct but for multi-head attention, whose points it tries to have carried forward on answers it chose. */
const CARRY_REFUSED: Expectation = { honest: allBut('multihead_self_attention'), statuses: ['failed'], notReason: /carried forward/, carryForward: true };

/** Where the child's namespaces, user and files keep every attack out (root with namespaces). */
const CONTAINED: Record<string, Expectation> = {
  exit_at_import: { honest: [], statuses: ['crashed'], reason: /while loading/ },
  hang_at_import: { honest: [], statuses: ['timeout'], reason: /time limit/ },
  hang_in_causal_mask: { honest: allBut('causal_mask'), statuses: ['timeout'], reason: /time limit|did not return/ },
  memory_bomb_typed_arrays: { honest: allBut('causal_mask'), statuses: ['crashed', 'error'], reason: /memory|allocat/i, alone: true, timeoutMs: 5 * TIMEOUT_MS },
  memory_bomb_heap: { honest: allBut('causal_mask'), statuses: ['crashed', 'error'], reason: /memory|allocat/i, alone: true, timeoutMs: 5 * TIMEOUT_MS },
  stack_overflow: { honest: allBut('softmax'), statuses: ['error'], reason: /call stack/ },
  patch_math: { honest: [], statuses: WRONG },
  patch_number_checks: { honest: [], statuses: WRONG },
  patch_prototypes: { honest: [], statuses: WRONG },
  throw_null: { honest: allBut('softmax', 'causal_mask'), statuses: ['error'], reason: /null|undefined/ },
  throw_unprintable: { honest: allBut('softmax', 'causal_mask'), statuses: ['error'] },
  lying_result: { honest: [], statuses: WRONG },
  proxy_result: { honest: [], statuses: WRONG },
  flood_output: { honest: FUNCTIONS, statuses: [] },
  kill_parent: { honest: allBut('causal_mask'), statuses: ['crashed', 'error'] },
  import_reference_static: REFUSED,
  require_reference_literal: REFUSED,
  static_node_imports: REFUSED,
  reference_at_runtime: { honest: [], statuses: WRONG },
  read_expected_from_disk: { honest: [], statuses: WRONG, hidden: true },
  overwrite_fixtures: { honest: FUNCTIONS, statuses: [], alone: true },
  forge_results: { honest: [], statuses: WRONG },
  spawn_process: { honest: allBut('causal_mask'), statuses: ['error'], notReason: /spawned a process|started a worker/ },
  open_socket: { honest: allBut('causal_mask'), statuses: ['error'], notReason: /connected to/ },
  unix_socket: { honest: allBut('causal_mask'), statuses: ['error'], reason: /unix sockets:/, notReason: /connected to|listening on/ },
  // The memory bomb needs the cores to itself; the abort is a crash, the report an error.
  leave_files: { honest: ['softmax'], statuses: ['crashed', 'error'], alone: true, timeoutMs: 5 * TIMEOUT_MS },
  print_environment: { honest: allBut('causal_mask'), statuses: ['error'], notReason: /ATTACK_GRADER_SECRET/ },
  channel_garbage: { honest: allBut('causal_mask'), statuses: ['error'], reason: /grader refused .* channel/, notReason: /lived/ },
  channel_costly_frames: { honest: [], statuses: ['error'], reason: /grader refused/, notReason: /not refused/ },
  // A child that is still writing when its limit comes is a timeout: refused either way, never read.
  channel_forged_fields: { honest: [], statuses: ['error', 'timeout'], reason: /grader refused|time limit|did not return|time budget/, notReason: /not refused/ },
  channel_stale_ids: { honest: allBut('causal_mask'), statuses: ['crashed', 'failed', 'error', 'timeout'] },
  // A larger shape sent alone is a wrong shape (failed); the promised one or a smaller, or a flood of notices, is refused.
  channel_shape_only: {
    honest: [], statuses: ['error', 'failed'], notReason: /not refused/,
    reason: /grader refused .*(shape without its values|messages it did not ask for)|^expected shape \[\d+,\d+\], got \[\d+,\d+,2\]$/,
  },
  kill_everyone: { honest: allBut('causal_mask'), statuses: ['error'], reason: /kill\(-1\) succeeded 0 times/ },
  kill_by_pid: { honest: allBut('causal_mask'), statuses: ['error'], reason: /reached 0 other processes by pid/ },
  signal_parent: { honest: allBut('causal_mask'), statuses: ['error'], reason: /signalled its parent 0 times/ },
  probe_siblings: { honest: allBut('causal_mask'), statuses: ['error'], reason: /probe found nothing/ },
  hang_in_softmax: { honest: [], budgeted: ['causal_mask'], statuses: ['timeout'], reason: /time limit|did not return|time budget/ },
  control_characters: { honest: allBut('causal_mask'), statuses: ['error'] },
  types_reach_classmates: { honest: FUNCTIONS, statuses: [], notes: /note: this declaration changes the types of the global scope/ },
  types_slow_check: { honest: FUNCTIONS, statuses: [], notes: /Type errors \(no points\): not checked, its type check took longer than \d+ s and was stopped/ },
  carry_all_zeros: { honest: [], statuses: WRONG, notReason: /carried forward/, carryForward: true },
  carry_probe_zeros: CARRY_REFUSED,
  carry_probe_copy: CARRY_REFUSED,
  carry_probe_elementwise: CARRY_REFUSED,
  carry_probe_positionwise: CARRY_REFUSED,
  carry_remembers: CARRY_REFUSED,
};

/** What types_reach_classmates declares for its classmates' notes: no one else's result may hold it. */
export const PHISHING = 'evil.example';

const NO_NETWORK_LAYER = 'no network namespace, no syscall filter, and this Node has no network permission (Node 25 and later have one)';
const NO_UNIX_LAYER = 'no mount namespace, no syscall filter, and this Node has no network permission (Node 25 and later refuse unix sockets too)';

/** Whether the syscall filter (lib/sandbox/syscallFilter.ts) is in force on this machine, as the grader finds it. */
export const filterInForce = (): boolean => syscallFilter(findTools()).gaps.length === 0;

/**
 * The attacks each setting cannot contain, and why (docs/security.md, "What each setting cannot
 * contain", lists the same). Their results are not held to CONTAINED; the grader must still finish,
 * with every row, and no classmate may lose a point.
 */
export function uncontained(setting: Setting): Record<string, string> {
  const filtered = filterInForce();
  const sockets: Record<string, string> = filtered || permissionCoversNetwork() ? {} : { open_socket: NO_NETWORK_LAYER, unix_socket: NO_UNIX_LAYER };
  switch (setting) {
    case 'namespaces':
    case 'user-namespaces':
      return {};
    case 'own-uids':
      return sockets;
    case 'same-user':
      return {
        ...sockets,
        ...(filtered ? {} : {
          kill_parent: "the child runs as the grader's user, and no syscall filter keeps its signals to itself: it may signal the grader",
          kill_everyone: "the child runs as the grader's user in no PID namespace, and no syscall filter: kill(-1) reaches the grader and every process of that user",
          kill_by_pid: "the child runs as the grader's user in no PID namespace, and no syscall filter: it may signal the grader and its other children by pid",
          signal_parent: "the child runs as the grader's user, and no syscall filter keeps its signals to itself: it may stop the launcher that starts its classmates' children",
        }),
        probe_siblings: 'no mount namespace covers the batch\'s folders: realpath and existsSync, which neither the permission model nor a syscall filter checks, tell what exists',
      };
  }
}

/** Attacks that would kill the grader's own process in this setting: graded nowhere but said to be uncontained. */
export const KILLS_THE_GRADER = (): Partial<Record<Setting, readonly string[]>> => (filterInForce() ? {} : { 'same-user': ['kill_parent', 'kill_everyone', 'kill_by_pid', 'signal_parent'] });

/**
 * The expectation of each attack in `setting`; an uncontained attack is only held to earning
 * nothing it did not compute (statuses of any kind, no reason required).
 */
export function expectationsFor(setting: Setting): Record<string, Expectation> {
  const expected = { ...CONTAINED };
  if (setting === 'own-uids') {
    // kill(-1) returns success whenever another process is in its PID namespace, even when it may
    // signal none of them (every one refuses with EPERM): what counts is that no classmate and not
    // the grader was hurt, which the batch checks.
    expected.kill_everyone = { ...expected.kill_everyone, reason: /kill\(-1\) succeeded/ };
  }
  for (const name of Object.keys(uncontained(setting))) {
    expected[name] = { honest: [], statuses: ['failed', 'error', 'crashed', 'timeout'], mayPass: true };
  }
  return expected;
}

/** What no result may hold: the grader's environment, a file outside the submission, an overrun of its budget. */
export function leaks(result: SubmissionResult): string[] {
  const text = JSON.stringify(result);
  const found: string[] = [];
  if (text.includes(SECRET.ATTACK_GRADER_SECRET)) found.push("the grader's environment reached the result");
  if (text.includes('outside-the-submission')) found.push('a file outside the submission reached the result');
  // The budget is spent in the child's own CPU time, which no wall clock on a loaded machine
  // measures: each test timed out at its limit spent a whole limit of it, so no more of them fit
  // than the budget holds (one more may start just before it ends). A hang while loading is one
  // timeout, whose verdict every test shares.
  // A test not run after its function hung spent nothing.
  const timedOut = result.cases.filter((c) => c.status === 'timeout' && !/budget|^not run:/.test(c.reason));
  const loading = /while loading|did not finish loading/;
  const limited = timedOut.filter((c) => !loading.test(c.reason)).length + (timedOut.some((c) => loading.test(c.reason)) ? 1 : 0);
  if (limited > Math.ceil(BUDGET_MS / TIMEOUT_MS)) found.push(`${limited} tests timed out at their limit of ${TIMEOUT_MS} ms, past its budget of ${BUDGET_MS} ms`);
  return found;
}

/** Everything wrong with a graded result, as sentences; [] when the grader did its job. */
export function problems(result: SubmissionResult, expected: Expectation): string[] {
  const found: string[] = leaks(result);
  if (result.status !== 'graded') found.push(`submission status ${result.status}: ${result.feedback[0]}`);
  let honestPoints = 0;
  // A test that did not run because the submission could not names the one that says why: that reason is checked.
  const reasonOf = (c: CaseResult) => result.cases.find((other) => other.name === saidBy(c.reason))?.reason ?? c.reason;
  for (const c of result.cases) {
    const where = `${c.name} (${c.status}: ${reasonOf(c).slice(0, 300) || 'no reason'})`;
    if (c.points !== (c.status === 'passed' ? c.maxPoints : 0)) found.push(`${where}: ${c.points} points for status ${c.status}`);
    if (c.output.length > 2 * OUTPUT_CAP + 200) found.push(`${c.name}: kept ${c.output.length} characters of output`);
    if ((expected.honest as readonly string[]).includes(c.fn)) {
      honestPoints += c.maxPoints;
      if (c.status !== 'passed') found.push(`${where}: an honest function, expected passed`);
      continue;
    }
    if (expected.mayPass && c.status === 'passed') {
      // An uncontained attack's other functions are honest code: their points are earned.
      honestPoints += c.maxPoints;
      continue;
    }
    if ((expected.budgeted as readonly string[] | undefined)?.includes(c.fn)) {
      if (c.status === 'passed') honestPoints += c.maxPoints;
      else if (!/time budget/.test(c.reason)) found.push(`${where}: an honest function, expected passed or out of budget`);
      continue;
    }
    if (c.points !== 0) found.push(`${where}: earned ${c.points} without computing it`);
    if (!expected.statuses.includes(c.status)) found.push(`${where}: expected ${expected.statuses.join(' or ')}`);
    if (c.reason.trim() === '') found.push(`${c.name}: lost its points without a reason`);
    else if (expected.reason && !expected.reason.test(reasonOf(c))) found.push(`${where}: reason should match ${expected.reason}`);
    if (expected.notReason?.test(reasonOf(c))) found.push(`${where}: the attack got through`);
  }
  if (Math.abs(result.score - honestPoints) > 1e-9) found.push(`score ${result.score}, expected ${honestPoints}`);
  if (expected.notes && !expected.notes.test(result.feedback.join('\n'))) found.push(`notes should match ${expected.notes}: ${result.feedback.join(' | ').slice(0, 300)}`);
  return found;
}

/** For a layout attack: nothing ran, every test refused or failed to load, the first saying why and the others naming it; or, for a folder that must load, every test passed. */
export function layoutProblems(result: SubmissionResult, layout: Layout): string[] {
  const found = leaks(result);
  if (layout.status === 'passes') {
    return [...found, ...result.cases.filter((c) => c.status !== 'passed').map((c) => `${c.name} ${c.status}: ${c.reason.slice(0, 300)}`)];
  }
  if (result.score !== 0) found.push(`score ${result.score}, expected 0`);
  const statuses = new Set(result.cases.map((c) => c.status));
  if (statuses.size !== 1 || !statuses.has(layout.status)) found.push(`statuses ${[...statuses].join(', ')}, expected ${layout.status}`);
  const first = firstToSay(result.cases);
  if (first && !layout.reason.test(first.reason)) found.push(`reason ${first.reason.slice(0, 300)} should match ${layout.reason}`);
  const others = [...new Set(result.cases.filter((c) => c !== first).map((c) => c.reason))];
  if (first && others.some((r) => r !== notRunAfterLoad(first.name))) found.push(`other tests say ${others[0].slice(0, 300)}, not that ${first.name} says why`);
  if (result.executionTimeMs > 15_000) found.push(`took ${result.executionTimeMs} ms`);
  return found;
}
