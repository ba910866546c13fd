/**
 * The attention probabilities behind each failed attention case, for the HTML report's heatmaps
 * (this assignment's Assignment.heatmap).
 * The graded output is softmax(Q Kᵀ/√d_k) V, so the probabilities are not in it: the diagnosis's
 * probe with V = identity returns them (lib/diagnosis/attention.ts), in the diagnosis's contained
 * child, after every case has its verdict; what it returns is only drawn, never judged. The expected
 * probabilities come with the fixture (probabilities.npy); a hidden case's are drawn only on an
 * instructor's page. A function that returns its weights (the optional parts' `attention` and
 * biased `multiHeadAttention`) has them in its output: the heatmap is its `weights` part, from the
 * failing call made once more with the case's own inputs, beside the fixture's expected weights.
 */
import type { GradedCase } from '../../lib/assignment/cases';
import type { Probe, ProbeAnswer } from '../../lib/diagnosis/probe';
import { unravelIndex } from '../../lib/format';
import type { LoadedFixture } from '../../lib/model/fixtures';
import type { AttentionHeatmap } from '../../lib/model/result';
import type { Matrix } from '../../lib/report/heatmap';
import { Tensor } from '../../lib/tensor';
import { cut, probeProbabilities } from './weights';

/** Entry b of a [...batch, rows, cols] tensor as a matrix. */
function matrixAt(t: Tensor, b: number): Matrix {
  const [rows, cols] = t.shape.slice(-2);
  return { rows, cols, data: Float64Array.from(t.data.subarray(b * rows * cols, (b + 1) * rows * cols)) };
}

/** The batch entry worth showing: the first with a NaN, else the one furthest from the expected probabilities. */
export function entryToShow(actual: Tensor | undefined, expected: Tensor): number {
  if (!actual) return 0;
  const per = expected.shape.slice(-2).reduce((a, b) => a * b, 1);
  let [worst, worstEntry] = [-1, 0];
  for (let i = 0; i < expected.data.length; i++) {
    const error = Math.abs(actual.data[i] - expected.data[i]);
    if (Number.isNaN(error)) return Math.floor(i / per);
    if (error > worst) [worst, worstEntry] = [error, Math.floor(i / per)];
  }
  return worstEntry;
}

async function heatmapOf(probe: Probe, graded: GradedCase, fixture: LoadedFixture, instructorView: boolean): Promise<AttentionHeatmap> {
  const expected = fixture.probabilities()!;
  const probed = await probeProbabilities(probe, fixture.inputs);
  const actual = typeof probed === 'string' ? undefined : probed;
  const entry = entryToShow(actual, expected);
  const batch = expected.shape.slice(0, -2);
  const { mask } = fixture.inputs;
  const allowed = mask && matrixAt(Tensor.ones(expected.shape, 'bool').logicalAnd(mask), entry);
  return {
    batchIndex: batch.length ? unravelIndex(entry, batch) : [],
    hidden: graded.hidden,
    ...(instructorView || !graded.hidden ? { expected: matrixAt(expected, entry) } : {}),
    ...(actual ? { actual: matrixAt(actual, entry) } : { problem: probed as string }),
    ...(allowed && { allowed }),
  };
}

/** A problem with a replayed call's weights, in a sentence, or undefined when they are drawable. */
function weightsProblem(answer: ProbeAnswer, expected: Tensor): string | undefined {
  if (answer.kind === 'none') return `called again, ${answer.why}`;
  if (answer.kind === 'threw') return `called again, the function threw ${cut(`${answer.name}: ${answer.message}`)}`;
  const weights = answer.parts?.weights;
  if (!weights) return 'called again, its return held no weights';
  if (weights.shape.join() !== expected.shape.join()) return `its weights should have shape [${expected.shape.join(', ')}], but they had shape [${weights.shape.join(', ')}]`;
  return undefined;
}

/** The weights a function returned (a tuple part named `weights`), from its failing call made once more. */
async function weightsHeatmapOf(probe: Probe, graded: GradedCase, fixture: LoadedFixture, instructorView: boolean): Promise<AttentionHeatmap> {
  const expected = fixture.parts.weights;
  const answer = await probe(graded.fn, { params: fixture.params, inputs: fixture.inputs });
  const problem = weightsProblem(answer, expected);
  const actual = problem === undefined && answer.kind === 'value' ? answer.parts!.weights : undefined;
  const entry = entryToShow(actual, expected);
  const batch = expected.shape.slice(0, -2);
  const { mask } = fixture.inputs;
  const allowed = mask && matrixAt(Tensor.ones(expected.shape, 'bool').logicalAnd(mask), entry);
  return {
    batchIndex: batch.length ? unravelIndex(entry, batch) : [],
    hidden: graded.hidden,
    ...(instructorView || !graded.hidden ? { expected: matrixAt(expected, entry) } : {}),
    ...(actual ? { actual: matrixAt(actual, entry) } : { problem: problem! }),
    ...(allowed && { allowed }),
  };
}

/**
 * The heatmap of a failed case (Assignment.heatmap), probed after grading, when the results are
 * final: scaled dot-product attention's probabilities, or the weights of a function that returns
 * them; none for the other functions (nor for a call told not to return its weights).
 * `instructorView`: a hidden case shows its expected values too (the page says so).
 */
export async function attentionHeatmap(probe: Probe, graded: GradedCase, fixture: LoadedFixture, instructorView: boolean): Promise<AttentionHeatmap | undefined> {
  if (graded.fn === 'scaled_dot_product_attention') return heatmapOf(probe, graded, fixture, instructorView);
  return fixture.parts.weights ? weightsHeatmapOf(probe, graded, fixture, instructorView) : undefined;
}
