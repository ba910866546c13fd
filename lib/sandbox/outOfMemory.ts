/**
 * What V8 says when the heap or an ArrayBuffer cannot grow under the memory cap: the session reads
 * it in a child's last output, the grader's fault ledger in an error's message (lib/grading/faults.ts).
 */
export const OUT_OF_MEMORY = /out of memory|allocation failed/i;
