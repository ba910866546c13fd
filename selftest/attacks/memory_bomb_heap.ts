/**
 * causalMask fills plain arrays (V8's heap) and keeps every one. The grader must see causalMask's
 * tests crash out of memory and keep the other functions' points.
 *
 * Past 4 GiB, more than any grader should allow, it stops allocating and spins: an uncontained run
 * then ends in a timeout instead of exhausting the machine.
 */
export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

const CHUNK = 1024 * 1024; // doubles: 8 MiB
const CEILING = 512; // chunks: 4 GiB

export function causalMask(seqLen: number): never {
  const hoard: number[][] = [];
  while (hoard.length < CEILING) hoard.push(new Array<number>(CHUNK).fill(seqLen + 0.5));
  for (;;) if (hoard.length < 0) throw new Error('unreachable');
}
