/**
 * The expected attention probabilities of a case, softmax(Q Kᵀ / √d_k) with the mask, for the
 * heatmaps of the HTML report. Computed here in plain float64 loops from the fixture's inputs: the
 * reference is not shipped with the grader, and the fixtures hold only the expected outputs.
 */
import { broadcastOffset, type Values } from '../compare';
import type { Matrix } from './heatmap';

/**
 * The probabilities of the first batch entry: Q [...batch, queries, dK], K [...batch, keys, dK],
 * mask broadcastable to [...batch, queries, keys] (0 = must not attend) → [queries, keys].
 * A query whose keys are all masked gets zeros, as the contract asks of the output.
 */
export function attentionProbabilities(q: Values, k: Values, mask?: Values): Matrix {
  const [rows, dK] = q.shape.slice(-2);
  const cols = k.shape[k.shape.length - 2];
  const batchIndex = q.shape.slice(0, -2).map(() => 0);
  const scale = 1 / Math.sqrt(dK);
  const data = new Float64Array(rows * cols);
  const scores = new Float64Array(cols);
  for (let i = 0; i < rows; i++) {
    let max = -Infinity;
    for (let j = 0; j < cols; j++) {
      const allowed = !mask || mask.data[broadcastOffset(mask.shape, [...batchIndex, i, j])] !== 0;
      let dot = 0;
      for (let d = 0; d < dK; d++) dot += q.data[i * dK + d] * k.data[j * dK + d];
      // −∞ marks a masked key: it adds nothing to the sum below, and an all-masked row stays at 0.
      scores[j] = allowed ? dot * scale : -Infinity;
      max = Math.max(max, scores[j]);
    }
    if (max === -Infinity) continue;
    let sum = 0;
    for (let j = 0; j < cols; j++) sum += Math.exp(scores[j] - max);
    for (let j = 0; j < cols; j++) data[i * cols + j] = Math.exp(scores[j] - max) / sum;
  }
  return { rows, cols, data };
}
