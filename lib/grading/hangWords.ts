/**
 * The words both paths say about a call into student code, shared by the grader (verdict.ts) and
 * the students' `npm test` (tests/graded.test.ts): a hang, a fault that ends a function's tests, a
 * time share used up, an input changed in place read the same on both paths. A function is named
 * by its export (`exported`), as the student wrote it.
 */
import type { Assignment } from './assignment';
import { inputNames, type FunctionSpec } from '../assignment/functions';
import { formatIndex, unravelIndex } from '../format';
import { failedToLoad } from '../sandbox/loadCheck';
import { floodWords } from '../sandbox/printed';
import { capWords, DEFAULT_MEMORY_BYTES, OUT_OF_MEMORY } from '../sandbox/outOfMemory';
import type { ErrorInfo, InputChange } from '../sandbox/protocol';

export { notRunAfterLoad } from '../model/notRun';

/** Each test's limit, the grader's default `--timeout` and `npm test`'s. */
export const PER_TEST_LIMIT_MS = 10_000;

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
/** A function as the words name it: its export, as the student wrote it. */
const named = (exported: string) => `\`${exported}\``;

/** A call that did not return within the per-test limit; `flooded` when it printed a flood meanwhile. */
export function didNotReturn(exported: string, timeoutMs: number, flooded = false): string {
  const words = `${named(exported)} did not return within ${seconds(timeoutMs)}, the time limit per test: an endless loop, or far too slow?`;
  return flooded ? `${words} ${floodWords()}` : words;
}

/** A submission whose import did not finish within the per-test limit (its top level loops or waits). */
export function didNotLoad(timeoutMs: number): string {
  return `the submission did not finish loading within ${seconds(timeoutMs)}, the time limit per test: an endless loop when it is imported?`;
}

/**
 * Code that reached the memory cap of `capBytes`: the function exported as `exported` did (undefined: the file, as it loaded);
 * `at` is the place in the student's code its stack shows, when it shows one (an allocation that
 * failed does; a process that died of it does not).
 */
export function memoryWords(exported: string | undefined, capBytes: number, at?: string): string {
  const who = exported ? named(exported) : 'it';
  return `${who} reached the memory limit of ${capWords(capBytes)}${at ? ` at ${at}` : ''}: does it allocate far more than it needs, or without end?`;
}

/**
 * What a test says of an error the submission threw (`duringLoad`: while it was imported, so every
 * test says it), from its description (lib/sandbox/errorInfo.ts). A stub's message says it all; an
 * allocation that failed is the memory cap (`capBytes`; `at`, where the stack shows it).
 */
export function thrownWords(error: ErrorInfo, duringLoad: boolean, capBytes = DEFAULT_MEMORY_BYTES, at?: string): string {
  const words = OUT_OF_MEMORY.test(error.message) ? memoryWords(undefined, capBytes, at) : error.notImplemented ? error.message : `${error.name}: ${error.message}`;
  return duringLoad ? failedToLoad(words) : words;
}

/** The process running the submission ended (`how`: "exited with code 3", "was killed by SIGKILL"…), during a call or while it was loaded. */
export function diedWords(how: string, duringLoad: boolean): string {
  return `the process running the submission died${duringLoad ? ' while loading the submission' : ''}: it ${how} (process.exit, out of memory?)`;
}

/** What ends a function's tests at once: each would cost as much again. */
export type Fault =
  | { kind: 'hang'; timeoutMs: number }
  /** It reached the memory cap of `capBytes` (the process running it died of it, or an allocation failed). */
  | { kind: 'memory'; capBytes: number }
  /** It wrote past the grader's cap on output, around the capture (straight to the process's output). */
  | { kind: 'flood' }
  /** It ended the process running it otherwise (process.exit, a signal); `how` says how, e.g. "exited with code 1". */
  | { kind: 'crash'; how: string }
  /** The process running it sent the grader what it refuses (a message it did not ask for, a forged one…); `how` says what. */
  | { kind: 'refused'; how: string };

function what(exported: string, fault: Fault): string {
  switch (fault.kind) {
    case 'hang':
      return `${named(exported)} did not return within ${seconds(fault.timeoutMs)}`;
    case 'memory':
      return `${named(exported)} reached the memory limit of ${capWords(fault.capBytes)}`;
    case 'flood':
      return `${named(exported)} flooded the grader with output`;
    case 'crash':
      return `the process running ${named(exported)} ended`;
    case 'refused':
      return `the grader refused what the process running ${named(exported)} sent`;
  }
}

/** A test of a function that already faulted in `faultedIn`: not run, so that one fault costs that function only. */
export function notRunAfterFault(exported: string, fault: Fault, faultedIn: string): string {
  const how = fault.kind === 'refused' || fault.kind === 'crash' ? ` (it ${fault.how})` : '';
  return `not run: ${what(exported, fault)} in ${faultedIn}${how}, so its other tests fail at once (one ${fault.kind === 'hang' ? 'hang' : 'fault'} costs that function only)`;
}

/** A test of a function that hung in `hungIn`. */
export function notRunAfterHang(exported: string, timeoutMs: number, hungIn: string): string {
  return notRunAfterFault(exported, { kind: 'hang', timeoutMs }, hungIn);
}

/**
 * A test cut short, or not started, because its function used up its share of the time budget
 * (faults.ts): every graded function has an equal share, so this never comes from another's tests.
 */
export function shareSpent(exported: string, shareMs: number, budgetMs: number, started: boolean): string {
  return `${started ? 'not finished' : 'not run'}: ${named(exported)} used up its share of the time budget, ${seconds(shareMs)} of ${seconds(budgetMs)} (each graded function has an equal share for all its tests)`;
}

/** What to do about a function that changes its inputs, unless the assignment says it in its own words (Assignment.inputsChangedFix). */
export const INPUTS_CHANGED_FIX = 'Leave your inputs as they were given and write into new arrays or tensors: a caller may use them again.';

/**
 * The inputs a call changed, as the student's code names them (`names`: a spec's argument names,
 * functions.ts inputNames), each with where it first changed: "mask, first at [0, 2, 5]".
 * `changes` as a call reports them (lib/model/inputsChanged.ts).
 */
export function changedInputsWords(names: Readonly<Record<string, string>>, changes: readonly InputChange[], shapes: Readonly<Record<string, readonly number[]>>): string {
  return changes.map(({ name, at }) => {
    const shape = shapes[name] ?? [];
    const size = shape.reduce((a, b) => a * b, 1);
    return `${names[name] ?? name}${shape.length && at < size ? `, first at ${formatIndex(unravelIndex(at, shape))}` : ''}`;
  }).join('; ');
}

/** A call of `spec`'s function that changed its inputs in place: a note, for no points. */
export function inputsChangedNote(
  assignment: Pick<Assignment, 'inputsChangedFix'>, spec: FunctionSpec, changes: readonly InputChange[], test: string, inputs: Readonly<Record<string, { shape: readonly number[] }>>,
): string {
  const shapes = Object.fromEntries(Object.entries(inputs).map(([name, t]) => [name, t.shape]));
  const fix = assignment.inputsChangedFix ?? INPUTS_CHANGED_FIX;
  return `Note (no points): ${named(spec.export)} changed what it was given in place in ${test} (${changedInputsWords(inputNames(spec), changes, shapes)}). Each test gives it a copy, so this costs nothing here. ${fix}`;
}
