/**
 * Correct: the catalogue's loop attention and loop multi-head attention with no knob turned
 * (selftest/catalogue/bugs/loops.ts), returning { shape, data: Float64Array }.
 */
import { loopAttention, loopMultiHead } from '../bugs/loops';

export { causalMask, softmax } from '../bugs/base';
export { loopAttention as scaledDotProductAttention, loopMultiHead as multiHeadSelfAttention };
