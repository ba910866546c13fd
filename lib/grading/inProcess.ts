/**
 * The diagnosis's context when the submission runs in this process (the vitest suite, the
 * self-tests): probes call it directly, and a multi-head failure asks how its attention function
 * does on the visible attention cases, each called on its own copy of the inputs as in the grader's
 * child (a function that changes its inputs does not change what its checks read).
 */
import type { ProbeContext, Probe } from '../diagnosis/probe';
import { Tensor } from '../tensor';
import { visibleCases } from '../../tests/cases';
import { evaluateCase } from './evaluate';
import { loadFixture } from './fixtures';
import { invokeCase, type CaseRunner } from './invoke';

export function inProcessContext(probe: Probe, run: CaseRunner<Tensor | Promise<Tensor>>): ProbeContext {
  let failures: Promise<string[]> | undefined;
  const attentionFailures = async () => {
    const failed: string[] = [];
    let hung = false;
    for (const graded of visibleCases('scaled_dot_product_attention')) {
      // After a hang, as in the grader, the function's other cases fail without a call (each would cost a limit).
      if (!hung) {
        const fixture = loadFixture(graded.fixture);
        try {
          const copies = Object.fromEntries(Object.entries(fixture.inputs).map(([name, t]) => [name, new Tensor(t.data.slice(), t.shape)]));
          if (evaluateCase(graded, await invokeCase(graded.fn, { params: fixture.params, inputs: copies }, run), fixture).passed) continue;
        } catch (err) {
          // It threw, hung or returned something unreadable: failed as well.
          hung = (err as Error | undefined)?.name === 'HangError';
        }
      }
      failed.push(graded.name);
    }
    return failed;
  };
  return { probe, attentionFailures: () => (failures ??= attentionFailures()) };
}
