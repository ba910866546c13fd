/** Copies the answer from the reference: refused before any of it runs. */
export { softmax, scaledDotProductAttention, causalMask, multiHeadSelfAttention } from '../../../reference';
