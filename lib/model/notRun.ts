/**
 * A submission none of whose tests could run (it failed to load or hung or died while loading, an
 * import was refused, there was no index.ts, the grader could not grade it) has one reason for all
 * of them. It is said once, by the first test in the order they run (a visible one, when there is
 * one: a visible test never points to a hidden one), and every other test says it did not run and
 * names that one. The grader (lib/grading/verdict.ts, grade.ts) and `npm test` (adapters/index.ts
 * loadedFor, through lib/grading/hangWords.ts) say it in these words; a batch's report counts each
 * such test under the cause of the test it names (lib/report/causes.ts).
 */

/** What a test says when the submission could not run and `first` said why. */
export function notRunAfterLoad(first: string): string {
  return `not run: the submission could not run; ${first} says why`;
}

const AFTER_LOAD = /not run: the submission could not run; (\S+) says why$/;

/** The test a reason of notRunAfterLoad names (the reason may lead with its status word), or undefined. */
export function saidBy(reason: string): string | undefined {
  return AFTER_LOAD.exec(reason)?.[1];
}

/** The test that says why, of tests in the order they run: the first visible one, else the first. */
export function firstToSay<C extends { name: string; hidden: boolean }>(cases: readonly C[]): C | undefined {
  return cases.find((c) => !c.hidden) ?? cases[0];
}
