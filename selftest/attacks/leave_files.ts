/**
 * Every way a child that may write nothing has been seen to leave files behind, none of which
 * Node's permission model checks:
 * - at import, V8 flags set at run time: `--redirect-code-traces-to` a file in each folder anyone may
 *   write (the file is opened at once), `--trace-turbo` into its working folder; then hot code for
 *   them to trace;
 * - multiHeadSelfAttention asks for heap snapshots near the heap limit
 *   (`v8.setHeapSnapshotNearHeapLimit`) and fills the heap: Node 22 wrote Heap.*.heapsnapshot
 *   files into the working folder, which was the instructor's checkout where the child ran as the
 *   grading user;
 * - scaledDotProductAttention aborts (a core file, were core files on);
 * - causalMask tries a diagnostic report in each folder and throws what happened.
 * The grader must leave nothing of it on the machine; softmax keeps its points.
 */
import { LEFT_MARK, messageOf, nodeModule, writableCandidates } from './kit';
import { PROBE_TAG } from './probe';
import type { Tensor } from '../../lib/tensor';

export { softmax } from './base';

interface V8 {
  setFlagsFromString(flags: string): void;
  setHeapSnapshotNearHeapLimit(limit: number): void;
}
interface Report {
  writeReport(file: string): string;
}

const happened: string[] = [];
const made = String(Math.random()).slice(2, 10);

function attempt(what: string, run: () => void): void {
  try {
    run();
    happened.push(`${what}: done`);
  } catch (err) {
    happened.push(`${what}: ${messageOf(err)}`);
  }
}

for (const dir of writableCandidates()) {
  attempt(`code traces into ${dir}`, () => {
    nodeModule<V8>('v8').setFlagsFromString(`--print-opt-code --redirect-code-traces --redirect-code-traces-to=${dir}/${LEFT_MARK}${PROBE_TAG}-${made}.asm`);
  });
}
attempt('turbo traces', () => nodeModule<V8>('v8').setFlagsFromString('--trace-turbo'));
let hot = 0;
for (let i = 0; i < 2_000_000; i++) hot += Math.sqrt(i) % 3;

export function scaledDotProductAttention(): never {
  process.abort();
}

/** Past 1 GiB it stops allocating and spins: an uncapped run ends in a timeout, not in the machine's memory. */
export function multiHeadSelfAttention(x: Tensor): never {
  attempt('heap snapshots near the heap limit', () => nodeModule<V8>('v8').setHeapSnapshotNearHeapLimit(3));
  const hoard: number[][] = [];
  while (hoard.length < 128) hoard.push(new Array<number>(1024 * 1024).fill(x.shape[0] + 0.5));
  for (;;) if (hoard.length < 0) throw new Error('unreachable');
}

export function causalMask(): never {
  for (const dir of writableCandidates()) {
    attempt(`a report into ${dir}`, () => (process as unknown as { report: Report }).report.writeReport(`${dir}/${LEFT_MARK}${PROBE_TAG}-${made}.json`));
  }
  throw new Error(`leaving files (${hot > 0 ? 'traced' : 'cold'}): ${happened.join('; ')}`);
}
