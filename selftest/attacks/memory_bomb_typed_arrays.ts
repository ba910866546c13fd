/**
 * causalMask fills 64 MiB Float64Arrays and keeps every one. Typed arrays live outside V8's heap,
 * so --max-old-space-size does not stop them: only an OS-level limit on the child does. The grader
 * must see causalMask's tests crash (or fail to allocate) and keep the other functions' points.
 *
 * Past 4 GiB, more than any grader should allow, it stops allocating and spins: an uncontained run
 * then ends in a timeout instead of exhausting the machine.
 */
export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

const CHUNK = 8 * 1024 * 1024; // Float64 elements: 64 MiB
const CEILING = 64; // chunks: 4 GiB

export function causalMask(seqLen: number): never {
  const hoard: Float64Array[] = [];
  while (hoard.length < CEILING) hoard.push(new Float64Array(CHUNK).fill(seqLen));
  for (;;) if (hoard.length < 0) throw new Error('unreachable');
}
