/** For self-tests of a submission none of whose tests could run (lib/model/notRun.ts). Uses vitest's expect: not for the attack runner's process. */
import { expect } from 'vitest';
import { firstToSay, notRunAfterLoad } from '../../lib/model/notRun';
import type { CaseResult } from '../../lib/model/result';

/**
 * Of a submission none of whose tests could run: the test that says why (lib/model/notRun.ts), the
 * one whose reason to check, once every other test is checked to name it, with the same status.
 */
export function sayer(cases: readonly CaseResult[]): CaseResult {
  const first = firstToSay(cases)!;
  for (const c of cases.filter((other) => other !== first)) expect({ status: c.status, reason: c.reason }, c.name).toEqual({ status: first.status, reason: notRunAfterLoad(first.name) });
  return first;
}
