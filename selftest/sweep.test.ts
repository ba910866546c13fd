/**
 * Every correct solution of the catalogue, the reference among them, agrees with the independent
 * float64 oracle (selftest/oracle.ts) on calls drawn by fast-check from every class of the domain
 * (lib/model/domain.ts), each called twice with the same shapes and new values (the second answer
 * counts as much as the first). A failure shrinks to the smallest call and prints the seed:
 * FC_SEED=<seed> replays the run.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Submission } from '../adapters';
import { checkClose, checkMaskEqual, checkShape, type Values } from '../lib/compare';
import { classesOf } from './domain/classify';
import { DOMAIN, REPEATED } from './domain/domain';
import { CONTRACT_TOLERANCE } from '../tests/cases';
import { CORRECT } from './catalogue';
import { build, PLANS, type Plan, type SweptFunction } from './domain/arbitraries';
import { answerOf, caller } from './calls';
import * as oracle from './oracle';

const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`sweep.test.ts: fast-check seed ${SEED} (FC_SEED=${SEED} replays this run)`);
const RUNS = Number(process.env.FC_RUNS ?? 4);


let solutions: { name: string; impl: Partial<Submission> }[] = [];
beforeAll(async () => {
  solutions = await Promise.all(CORRECT.map(async (entry) => ({ name: entry.name, impl: (await import(entry.file)) as Partial<Submission> })));
});

/** Where a solution's answer to `data` is off the oracle's, or undefined. */
function disagreement(fn: SweptFunction, impl: Partial<Submission>, name: string, data: ReturnType<typeof build>): string | undefined {
  const expected = answerOf<oracle.Out>(oracle, fn, data);
  let output: Values;
  try {
    output = caller(impl, name)(fn, data);
  } catch (err) {
    return `threw ${(err as Error).message}`;
  }
  const shape = checkShape(output, expected);
  if (!shape.passed) return shape.message;
  const close = fn === 'causal_mask' ? checkMaskEqual(output, expected) : checkClose(output, expected, CONTRACT_TOLERANCE);
  return close.passed ? undefined : close.message;
}

// Every run calls twice: the repeated classes are swept by all of them.
const classes = DOMAIN.filter((c) => c.about !== REPEATED && !c.id.endsWith(': repeated'));

describe('every correct solution agrees with the oracle on every class, called twice', () => {
  it.each(classes.map((c, i) => [c.id, c, i] as const))('%s', (_, domainClass, i) => {
    const fn = domainClass.fn as SweptFunction;
    const reaching = PLANS[fn].filter((plan) => classesOf(fn, build(fn, plan)).includes(domainClass.id));
    fc.assert(
      fc.property(reaching, (plan: Plan) => {
        for (const { name, impl } of solutions) {
          for (const again of [0, 1]) {
            const off = disagreement(fn, impl, name, build(fn, plan, again));
            if (off) throw new Error(`${name}${again ? ', called again with new values' : ''}: ${off}`);
          }
        }
      }),
      { seed: SEED + i, numRuns: RUNS },
    );
  });

  it('the sweep sees a solution that is wrong on one class only', () => {
    // softmax right for every dim but -2: the sweep of that class must catch it, and no other.
    const right = solutions[0].impl;
    const impl = { ...right, softmax: (x: Parameters<Submission['softmax']>[0], dim: number) => right.softmax!(x, dim === -2 ? -1 : dim) };
    const caught = (id: string) => {
      const reaching = PLANS.softmax.filter((plan) => classesOf('softmax', build('softmax', plan)).includes(id));
      return fc.check(fc.property(reaching, (plan: Plan) => disagreement('softmax', impl, 'dim -2 as -1', build('softmax', plan)) === undefined), { seed: SEED, numRuns: 20 }).failed;
    };
    expect(caught('softmax: dim -2 of 3-D')).toBe(true);
    expect(caught('softmax: dim 0 of 3-D')).toBe(false);
  });
});
