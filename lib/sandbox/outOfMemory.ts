/**
 * The memory cap a submission runs under, and how running out of it shows: the session reads
 * OUT_OF_MEMORY in a child's last output, the fault ledger in an error's message
 * (lib/grading/faults.ts), and both paths name the cap in the same words (capWords).
 */

/** What V8 says when the heap or an ArrayBuffer cannot grow under the memory cap. */
export const OUT_OF_MEMORY = /out of memory|allocation failed/i;

/** V8's message for an ArrayBuffer it could not allocate; npm test's cap (lib/grading/bufferCap.ts) says it too. */
export const ALLOCATION_FAILED = 'Array buffer allocation failed';

/** What a session adds to how a child ended ("was killed by SIGABRT") when it died at the cap. */
export const DIED_AT_CAP = ': memory limit exceeded';

/** The cap of each child that runs a submission (`--memory`), and npm test's. */
export const DEFAULT_MEMORY_BYTES = 2 * 1024 ** 3;

/** A cap as people write it: "2 GiB", "1.5 GiB", "256 MiB". */
export function capWords(bytes: number): string {
  const gib = bytes / 1024 ** 3;
  if (gib >= 1) return `${Math.round(gib * 10) / 10} GiB`;
  return `${Math.round((bytes / 1024 ** 2) * 10) / 10} MiB`;
}
