/** Loops with j >= i: each position sees itself and the future. */
export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(seqLen: number) {
  const data: boolean[] = [];
  for (let i = 0; i < seqLen; i++) for (let j = 0; j < seqLen; j++) data.push(j >= i);
  return { shape: [seqLen, seqLen], data };
}
