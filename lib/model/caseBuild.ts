/**
 * How a case is built from its recipes: its inputs, and from the reference its expected output,
 * its expected attention probabilities and what each known mistake outputs on it. The fixture
 * generator builds every stored case this way and writes it to disk; the grader builds a case
 * drawn for one submission (`--variants`) the same way and keeps it in its own memory: the child
 * that runs the submission gets the inputs only. The reference is handed in (CaseReference): lib/
 * ships to students, reference/ does not.
 */
import type { LoadedFixture } from './fixtures';
import type { Tensor } from '../tensor';
import type { GradedCase } from '../assignment/cases';
import { make, type FixtureSpec, type MakeContext, type Made } from './recipes';

/** A case's inputs as the graded functions take them. */
export interface CaseData {
  params: Record<string, number>;
  inputs: Record<string, Tensor>;
}

/** What the reference computes for a case (reference/fixtures/outputs.ts), in float64, as stored. */
export interface CaseReference extends MakeContext {
  output(graded: GradedCase, data: CaseData): Tensor;
  /** An attention case's probabilities softmax(Q Kᵀ/√d_k) with the mask. */
  probabilities(data: CaseData): Tensor;
  /** Each known mistake's output on the case, where it is finite and out of tolerance of `expected`. */
  mistakes(graded: GradedCase, data: CaseData, expected: Tensor): [string, Tensor][];
}

/**
 * A case ready to grade: the shape a stored fixture loads into (lib/model/fixtures.ts
 * LoadedFixture), so the grader and the diagnosis read a drawn case as they read a stored one.
 */
export interface BuiltCase extends LoadedFixture {
  /** How each input was made (seed and words), for the manifest. */
  made: Record<string, Made>;
}

/** The reference computes on float64 copies: a float32 input is widened, never rounded again. */
const widened = (inputs: Record<string, Tensor>): Record<string, Tensor> =>
  Object.fromEntries(Object.entries(inputs).map(([name, t]) => [name, t.dtype === 'bool' ? t : t.astype('float64')]));

export function buildCase(graded: GradedCase, key: string, spec: FixtureSpec, reference: CaseReference): BuiltCase {
  const made = Object.fromEntries(Object.entries(spec.inputs).map(([name, recipe]) => [name, make(recipe, reference)]));
  const inputs = Object.fromEntries(Object.entries(made).map(([name, m]) => [name, m.tensor]));
  const params = spec.params ?? {};
  const data = { params, inputs: widened(inputs) };
  const expected = reference.output(graded, data);
  let probabilities: Tensor | undefined;
  let mistakes: Map<string, Tensor> | undefined;
  return {
    key,
    params,
    inputs,
    expected,
    parts: {},
    made,
    probabilities: () => (graded.fn === 'scaled_dot_product_attention' ? (probabilities ??= reference.probabilities(data)) : undefined),
    mistakes: () => (mistakes ??= new Map(reference.mistakes(graded, data, expected))),
  };
}
