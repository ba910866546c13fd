/**
 * Every function returns zeros of the right shape. Graded with --carry-forward: the grader asked
 * the same child's attention for the heads' outputs, got zeros, and carried the multi-head points
 * for multi-head zeros (5.5 of 14.5 points for nothing). Zeros are no attention: nothing may be
 * carried, and nothing earned.
 */
import { wrongAnswers } from './kit';

const zeros = wrongAnswers(0);
export const { softmax, scaledDotProductAttention, causalMask, multiHeadSelfAttention } = zeros;
