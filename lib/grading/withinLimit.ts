/**
 * A call into student code under `npm test`, with the grader's per-test time limit. Vitest's own
 * timeout cannot stop a synchronous endless loop (its timer never gets to run), so `npm test`
 * used to stop after its RUN line and never move again. The call runs instead from a one-line
 * script run by node:vm with a timeout: V8's watchdog interrupts whatever JavaScript runs under
 * it, the student's loop included, and Node turns that into an error the test reports, after
 * which the run goes on. The check costs a few tens of microseconds per call.
 */
import vm from 'node:vm';
import { nodeMs } from '../sandbox/nodeMs';
import { didNotReturn, PER_TEST_LIMIT_MS } from './hangWords';

/** A graded function did not return within the per-test limit; the message is the grader's. */
export class HangError extends Error {
  override name = 'HangError';
  /** `exported`: the function's export, as the words name it. */
  constructor(readonly exported: string, limitMs: number) {
    super(didNotReturn(exported, limitMs));
    this.stack = `${this.name}: ${this.message}`;
  }
}

const SLOT = '__attentionGradedCall';
const CALL = new vm.Script(`globalThis.${SLOT}()`, { filename: 'within-limit' });

export function withinLimit<T>(exported: string, call: () => T, limitMs = PER_TEST_LIMIT_MS): T {
  const slots = globalThis as unknown as Record<string, unknown>;
  const outer = slots[SLOT];
  slots[SLOT] = call;
  try {
    // displayErrors: false, or Node prefixes the stack of whatever the student's code threw with a source excerpt.
    // A limit is what is left of a share as often as not, a fraction of a ms that node:vm refuses.
    return CALL.runInThisContext({ timeout: nodeMs(limitMs), displayErrors: false }) as T;
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new HangError(exported, limitMs);
    throw err;
  } finally {
    slots[SLOT] = outer;
  }
}
