/**
 * The attention probabilities behind a failed attention case, for the HTML report's heatmaps. The
 * graded output is softmax(Q Kᵀ/√d_k) V, so the probabilities are not in it: one more call to the
 * same contained child, with V replaced by the identity, returns them. The probes run after every
 * case has its verdict and award nothing; what they return is only drawn, never judged.
 */
import { attentionProbabilities } from '../report/probabilities';
import type { Matrix } from '../report/heatmap';
import type { ChildSession } from '../sandbox/session';
import { formatShape } from '../shape';
import { Tensor } from '../tensor';
import type { GradedCase } from '../../tests/cases';
import type { LoadedFixture } from './fixtures';
import type { CaseResult, CaseStatus } from './result';

export interface AttentionHeatmap {
  /** The batch entry shown: the first, e.g. [0, 0] for Q [2, 2, 12, 64]. */
  batchIndex: number[];
  /** softmax(Q Kᵀ/√d_k) with the mask, computed by the grader (lib/report/probabilities.ts). */
  expected: Matrix;
  /** What the submission's function gave with V = identity; absent when the probe gave nothing usable. */
  actual?: Matrix;
  /** Why there is no `actual`, in a sentence. */
  problem?: string;
}

/** The statuses where the function ran and answered wrongly: a probe can show how. */
const PROBED: readonly CaseStatus[] = ['failed', 'error'];

/** The identity [n, n] repeated over the batch dims: attention's output is then its probabilities. */
function identityValues(batch: readonly number[], n: number): Tensor {
  const count = batch.reduce((a, b) => a * b, 1);
  const data = new Float32Array(count * n * n);
  for (let b = 0; b < count; b++) for (let i = 0; i < n; i++) data[b * n * n + i * n + i] = 1;
  return new Tensor(data, [...batch, n, n]);
}

/** The first batch entry of what came back, NaN kept (it is what the heatmap should show); a string says why not. */
function firstEntry(raw: unknown, shape: readonly number[]): Matrix | string {
  if (typeof raw !== 'object' || raw === null) return 'with V = identity the function returned no tensor';
  const { shape: got, data } = raw as { shape?: unknown; data?: unknown };
  // The adapters accept a shape as an array or a typed array; so does the probe.
  const listed = Array.isArray(got) || ArrayBuffer.isView(got) ? Array.from(got as ArrayLike<unknown>) : [];
  const gotShape = listed.length > 0 && listed.every((n) => Number.isInteger(n)) ? (listed as number[]) : undefined;
  if (!gotShape || gotShape.length !== shape.length || gotShape.some((n, i) => n !== shape[i])) {
    const shown = gotShape ? formatShape(gotShape) : 'no readable shape';
    return `with V = identity the output should be the probabilities ${formatShape(shape)}, but it had ${shown}`;
  }
  const [rows, cols] = shape.slice(-2);
  const numeric = data instanceof Float32Array || data instanceof Float64Array ||
    (Array.isArray(data) && data.every((v) => typeof v === 'number'));
  if (!numeric || data.length < rows * cols) return 'the output with V = identity holds no readable numbers';
  return { rows, cols, data: Float64Array.from({ length: rows * cols }, (_, i) => data[i]) };
}

const cut = (text: string) => (text.length > 300 ? `${text.slice(0, 299)}…` : text);

async function probeCase(session: ChildSession, fixture: LoadedFixture): Promise<AttentionHeatmap> {
  const { q, k, mask } = fixture.inputs;
  const batch = q.shape.slice(0, -2);
  const keys = k.shape[k.ndim - 2];
  const heatmap: AttentionHeatmap = { batchIndex: batch.map(() => 0), expected: attentionProbabilities(q, k, mask) };
  const inputs = { ...fixture.inputs, v: identityValues(batch, keys) };
  const outcome = await session.call('scaled_dot_product_attention', { params: fixture.params, inputs });
  session.takeOutput(); // what the probe printed is nobody's feedback
  if (outcome.kind === 'value') {
    const read = firstEntry(outcome.value, [...batch, q.shape[q.ndim - 2], keys]);
    return typeof read === 'string' ? { ...heatmap, problem: read } : { ...heatmap, actual: read };
  }
  const problem =
    outcome.kind === 'threw' || outcome.kind === 'load_failed'
      ? `with V = identity the function threw ${cut(`${outcome.error.name}: ${outcome.error.message}`)}`
      : outcome.kind === 'timeout'
        ? 'with V = identity the function did not finish within the time limit'
        : `with V = identity the process running the submission ${outcome.how}`;
  return { ...heatmap, problem };
}

/** One probe per failed attention case, by case name. Run after grading: the results are final. */
export async function probeAttention(
  session: ChildSession,
  cases: readonly GradedCase[],
  fixtures: ReadonlyMap<string, LoadedFixture>,
  results: readonly CaseResult[],
): Promise<Map<string, AttentionHeatmap>> {
  const heatmaps = new Map<string, AttentionHeatmap>();
  for (const graded of cases) {
    const result = results.find((r) => r.name === graded.name);
    if (graded.fn !== 'scaled_dot_product_attention' || !result || !PROBED.includes(result.status)) continue;
    heatmaps.set(graded.name, await probeCase(session, fixtures.get(graded.fixture)!));
  }
  return heatmaps;
}
