/**
 * The submission npm test grades, in the test's own process: read and checked as the grader reads
 * it (load.ts), imported under a watchdog (loadWatchdog.ts), twice: the graded instance, which
 * sees only the graded calls in the table's order (as the grader's child does), and an instance of
 * its own for the diagnosis's probes (as the grader probes one in the child that graded).
 */
import type { Assignment } from '../grading/assignment';
import { expectedShapes } from '../assignment/call';
import { specOf } from '../assignment/functions';
import type { CaseInputs } from '../assignment/call';
import type { Probe, ProbeAnswer, ProbeCall } from '../diagnosis/probe';
import { trapExit } from '../grading/exitTrap';
import { diedWords, notRunAfterLoad, PER_TEST_LIMIT_MS } from '../grading/hangWords';
import { InProcessSession } from '../grading/inProcess';
import { answerToLast, askingOnce, noAnswer, valueAnswer } from '../grading/probeCalls';
import { describeError } from '../sandbox/errorInfo';
import { checkChosen, chosenFolder, loadError, LoadFailure, type Checked } from './load';
import { watchedLoad } from './loadWatchdog';

/**
 * The diagnosis's way to call an implementation again (lib/diagnosis/probe.ts), in this process,
 * as the grader's probes call its child (lib/grading/probeCalls.ts): each call on its own copy of
 * the inputs, its return read as the child reads it, with NaN kept, and the answer says which
 * inputs it changed.
 */
export function probeOf(assignment: Pick<Assignment, 'functions'>, impl: object, file = 'student/index.ts', limitMs = PER_TEST_LIMIT_MS): Probe {
  const session = new InProcessSession(impl, assignment.functions, file, { timeoutMs: limitMs });
  return askingOnce(async (fn, inputs) => answerIn(session, assignment, fn, inputs));
}

/** One call through `session`, its answer as a probe's. */
function answerIn(session: InProcessSession, assignment: Pick<Assignment, 'functions'>, fn: string, inputs: CaseInputs): ProbeAnswer {
  const outcome = session.call(fn, inputs);
  if (outcome.kind === 'timeout' || outcome.kind === 'crashed') return noAnswer(outcome);
  const changed = outcome.changed.length ? { changed: outcome.changed } : {};
  const spec = specOf(assignment.functions, fn);
  if (outcome.kind === 'value') return { ...valueAnswer(spec, outcome.value, expectedShapes(spec, inputs)), ...changed };
  // As the child describes it, read under the call's limit: the thrown value's getters may loop.
  return { kind: 'threw', name: outcome.error.name, message: outcome.error.message, ...changed };
}

/**
 * ProbeContext.inFreshInstance in this process: the calls in an instance no call has reached (as
 * the grader makes them in a child of their own), one after another; a call with no answer ends it.
 */
export function inFreshInstanceOf(assignment: Pick<Assignment, 'functions'>, loaded: Pick<Loaded, 'fresh' | 'checked'>, limitMs = PER_TEST_LIMIT_MS) {
  return async (calls: readonly ProbeCall[]): Promise<ProbeAnswer> => {
    let instance: object;
    try {
      instance = await loaded.fresh();
    } catch (err) {
      if (err instanceof LoadFailure) return noAnswer({ kind: 'load_failed' });
      throw err;
    }
    const session = new InProcessSession(instance, assignment.functions, loaded.checked.entryName, { timeoutMs: limitMs });
    return answerToLast(calls, ({ fn, inputs }) => answerIn(session, assignment, fn, inputs));
  };
}

export interface Loaded {
  checked: Checked;
  /** The instance the graded calls go to. */
  graded: object;
  /**
   * An instance of its own for the diagnosis's probes, loaded at the first probe (a passing run
   * loads none): what probes do never reaches a graded call.
   */
  probes(): Promise<object>;
  /** probeOf the instance for probes. */
  probe: Probe;
  /**
   * A new instance each time, that no call has reached (`index.ts?probe=N`): where the diagnosis
   * replays an earlier graded call and the failing one to find the call that left state.
   */
  fresh(): Promise<object>;
}

async function load(assignment: Pick<Assignment, 'root' | 'functions'>): Promise<Loaded> {
  const checked = checkChosen(chosenFolder(assignment.root));
  // What an import threw is described while the import is still watched: its getters are the
  // student's. A process.exit at its top level is the crash the grader reports (exitTrap.ts).
  const imported = (file: string) =>
    watchedLoad(async () => {
      const exit = trapExit();
      let loaded: { module: object } | { failure: LoadFailure };
      try {
        loaded = { module: (await import(file)) as object };
      } catch (err) {
        loaded = { failure: loadError(describeError(err)) };
      } finally {
        exit.release();
      }
      // Whatever followed process.exit (what the trap threw, caught or not), the grader's child was gone.
      if (exit.exited) throw new LoadFailure('crashed', diedWords(exit.exited, true));
      if ('failure' in loaded) throw loaded.failure;
      return loaded.module;
    }, checked.entryName);
  const graded = await imported(checked.entryFile);
  // Every file of the folder resolves with this query too (vitest.config.mts): a second instance of each.
  let probes: Promise<object> | undefined;
  const instance = () => (probes ??= imported(`${checked.entryFile}?probe`));
  let probe: Probe | undefined;
  let instances = 0;
  return {
    checked,
    graded,
    probes: instance,
    fresh: () => imported(`${checked.entryFile}?probe=${++instances}`),
    probe: async (fn, inputs, options) => (probe ??= probeOf(assignment, await instance(), checked.entryName))(fn, inputs, options),
  };
}

let chosen: Promise<Loaded> | undefined;

/** The chosen submission, checked and loaded once; rejects with a LoadFailure in the grader's words. */
export function loadedSubmission(assignment: Pick<Assignment, 'root' | 'functions'>): Promise<Loaded> {
  return (chosen ??= load(assignment));
}

/** The test that met the LoadFailure first in this run, and says why. */
let loadFailedIn: string | undefined;

/**
 * loadedSubmission for the test `test`. When the submission cannot load, the first test to ask
 * fails with the reason and every later one says it did not run and names that test, as the
 * grader says it once (lib/model/notRun.ts). With `-t`, the first is the first that ran.
 */
export async function loadedFor(assignment: Pick<Assignment, 'root' | 'functions'>, test: string): Promise<Loaded> {
  try {
    return await loadedSubmission(assignment);
  } catch (err) {
    if (!(err instanceof LoadFailure)) throw err;
    loadFailedIn ??= test;
    if (loadFailedIn === test) throw err;
    throw new LoadFailure(err.status, notRunAfterLoad(loadFailedIn));
  }
}
