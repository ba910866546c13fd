/**
 * Replaces Math's functions at import, so that a closeness check run in this process would pass
 * anything (|a − b| is always 0, every maximum +∞), and answers zeros everywhere. The checks run in
 * the grader's own process, so every test must fail and earn nothing.
 */
import { wrongAnswers } from './kit';

const lies: Record<string, (...args: number[]) => number> = {
  abs: () => 0,
  max: () => Infinity,
  min: () => -Infinity,
  exp: () => 1,
  sqrt: () => 1,
  round: () => 0,
  fround: (x) => x,
  hypot: () => 0,
};
for (const [name, lie] of Object.entries(lies)) (Math as unknown as Record<string, unknown>)[name] = lie;

export const { softmax, scaledDotProductAttention, causalMask, multiHeadSelfAttention } = wrongAnswers(0);
