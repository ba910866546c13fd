/**
 * Diagnoses a failing multiHeadSelfAttention case by calling the student's functions again: first
 * whether their own scaledDotProductAttention fails its tests (multi-head attention is built on
 * it), then inputs under which a known mistake would give the expected output (weights transposed,
 * features reordered, qProj rescaled, one batch dim), then what the output ignores (numHeads, the
 * mask, oProj), a split without the transpose, simulated with the student's own attention
 * function, and last the parts taken apart by designed weights (multiHeadDesign.ts).
 */
import type { Values } from '../../lib/compare';
import type { LoadedFixture } from '../../lib/model/fixtures';
import { Tensor } from '../../lib/tensor';
import type { GradedCase } from '../../lib/assignment/cases';
import { ignoredInputs } from './multiHeadIgnored';
import { byDesign } from './multiHeadDesign';
import { callPremises, CALLS, changedWords, Premises } from './premises';
import { probeOutput, withinTolerance, type Finding, type ProbeContext } from '../../lib/diagnosis/probe';
import type { Failure } from '../../lib/diagnosis/explain';

interface Weights {
  q_proj: Tensor;
  k_proj: Tensor;
  v_proj: Tensor;
  o_proj: Tensor;
}

type Inputs = Weights & { x: Tensor; mask?: Tensor };

const call = (context: ProbeContext, inputs: Inputs, numHeads: number) =>
  probeOutput(context, 'multihead_self_attention', { params: { numHeads }, inputs: { ...inputs } });

/** Rows (output features) of a weight reordered so head h's feature i sits at i·numHeads + h, as an interleaved split reads it. */
function interleaveRows(w: Tensor, numHeads: number): Tensor {
  const [dOut, dIn] = w.shape;
  const dHead = dOut / numHeads;
  const data = new Float64Array(w.size);
  for (let h = 0; h < numHeads; h++) {
    for (let i = 0; i < dHead; i++) data.set(Array.from(w.data.subarray((h * dHead + i) * dIn, (h * dHead + i + 1) * dIn)), (i * numHeads + h) * dIn);
  }
  return new Tensor(data, w.shape);
}

const transposed = (w: Tensor) => w.transpose(0, 1);

/**
 * oProj with its column blocks (one per head) in reverse order: code that concatenates the heads
 * last to first, multiplied by it, gives what the right order gives with oProj.
 */
function reverseHeadColumns(w: Tensor, numHeads: number): Tensor {
  const [dOut, dIn] = w.shape;
  const dHead = dIn / numHeads;
  const data = new Float64Array(w.size);
  for (let r = 0; r < dOut; r++) {
    for (let h = 0; h < numHeads; h++) {
      for (let i = 0; i < dHead; i++) data[r * dIn + (numHeads - 1 - h) * dHead + i] = w.data[r * dIn + h * dHead + i];
    }
  }
  return new Tensor(data, w.shape);
}

/**
 * Weights under which each mistake computes exactly the expected output. A head's scores scaled by
 * 1/√s instead of 1/√dHead are right given qProj times √(s / dHead).
 */
function fixingInputs(inputs: Inputs, numHeads: number): [string, Inputs, string?][] {
  const { q_proj, k_proj, v_proj, o_proj } = inputs;
  const dModel = inputs.x.shape[inputs.x.ndim - 1];
  const dHead = dModel / numHeads;
  const scaled = (by: number, evidence: string): [string, Inputs, string] => ['heads_scale', { ...inputs, q_proj: q_proj.mul(by) }, evidence];
  const interleaved = {
    q_proj: interleaveRows(q_proj, numHeads), k_proj: interleaveRows(k_proj, numHeads), v_proj: interleaveRows(v_proj, numHeads),
    o_proj: transposed(interleaveRows(transposed(o_proj), numHeads)),
  };
  return [
    ['projections_swapped', { ...inputs, q_proj: k_proj, k_proj: q_proj }],
    ['heads_order', { ...inputs, o_proj: reverseHeadColumns(o_proj, numHeads) }],
    // Which weights the probe transposed is the evidence: a student who got only oProj wrong reads where.
    ['projection_not_transposed', { ...inputs, q_proj: transposed(q_proj), k_proj: transposed(k_proj), v_proj: transposed(v_proj), o_proj: transposed(o_proj) },
      'With all four weights transposed, your output is right.'],
    ['projection_not_transposed', { ...inputs, q_proj: transposed(q_proj), k_proj: transposed(k_proj), v_proj: transposed(v_proj) },
      'With qProj, kProj and vProj transposed, your output is right: oProj is used as it should be.'],
    ['projection_not_transposed', { ...inputs, o_proj: transposed(o_proj) }, 'With only oProj transposed, your output is right.'],
    ['heads_interleaved', { ...inputs, ...interleaved }],
    ...(numHeads > 1 ? [scaled(Math.sqrt(numHeads), `With qProj times √numHeads = √${numHeads}, your output is right: each head's scores are divided by √d_model = √${dModel}, not by √d_head = √${dHead}.`)] : []),
    ...(dHead > 1 ? [
      scaled(1 / Math.sqrt(dHead), `With qProj divided by √d_head = √${dHead}, your output is right: the heads' scores are not divided by √d_head.`),
      scaled(Math.sqrt(dHead), `With qProj times √d_head = √${dHead}, your output is right: each head's scores are divided by d_head = ${dHead}, not by √d_head.`),
    ] : []),
  ];
}

/** The student's multi-head output if heads were split by a plain reshape to [..., numHeads, seq, dHead], attended by their own function. */
async function reshapedHeads(inputs: Inputs, numHeads: number, context: ProbeContext, transposeBack: boolean): Promise<Tensor | undefined> {
  const { x, mask } = inputs;
  const [seq, dModel] = x.shape.slice(-2);
  const lead = x.shape.slice(0, -2);
  const project = (w: Tensor) => x.astype('float64').matmul(transposed(w)).reshape(...lead, numHeads, seq, dModel / numHeads);
  const heads = await probeOutput(context, 'scaled_dot_product_attention', {
    params: {}, inputs: { q: project(inputs.q_proj), k: project(inputs.k_proj), v: project(inputs.v_proj), ...(mask && { mask }) },
  });
  if (!heads || heads.shape.join() !== [...lead, numHeads, seq, dModel / numHeads].join()) return undefined;
  const merged = (transposeBack ? heads.transpose(-3, -2) : heads).reshape(...lead, seq, dModel);
  return merged.matmul(transposed(inputs.o_proj));
}

/**
 * The premises of every probe below (premises.ts): when the case has a mask, an attention function
 * that leaves its mask as given (one that changes it changes every head after the first, and with
 * it the multi-head function's own mask); then calls that keep nothing and leave the inputs as given.
 */
async function premisesBroken(inputs: Inputs, numHeads: number, context: ProbeContext): Promise<Finding | undefined> {
  if (inputs.mask) {
    const x = inputs.x.reshape(-1, ...inputs.x.shape.slice(-2));
    const attentionInputs = { q: x, k: x, v: x, mask: inputs.mask };
    const answer = await context.probe('scaled_dot_product_attention', { params: {}, inputs: attentionInputs });
    const changed = answer.kind !== 'none' && answer.changed?.some((c) => c.name === 'mask') ? changedWords(answer, attentionInputs) : undefined;
    if (changed) return { id: 'attention_changes_inputs', evidence: `After a call of your scaledDotProductAttention, these inputs are not what they were given: ${changed}.` };
  }
  const other = { ...inputs, x: inputs.x.mul(0.5) };
  return new Premises(callPremises(context, 'multihead_self_attention', { params: { numHeads }, inputs: { ...inputs } },
    { params: { numHeads }, inputs: { ...other } }, { stateKept: 'mhsa_state_kept', inputsChanged: 'mhsa_inputs_changed' })).broken(CALLS);
}

export async function diagnoseMultiHead(
  graded: GradedCase, fixture: LoadedFixture, outcome: Failure | { kind: 'output'; output: Values }, context: ProbeContext,
): Promise<Finding[]> {
  if (outcome.kind === 'output' && withinTolerance(outcome.output, fixture.expected, graded.tolerance)) return [];
  const failing = await context.failures('scaled_dot_product_attention');
  if (failing.length) {
    const names = failing.length > 3 ? `${failing.slice(0, 3).join(', ')} …` : failing.join(', ');
    return [{ id: 'attention_broken', evidence: `It fails ${failing.length} of its tests (${names}).` }];
  }
  const inputs = fixture.inputs as unknown as Inputs;
  const numHeads = fixture.params.numHeads;
  const broken = await premisesBroken(inputs, numHeads, context);
  if (broken) return [broken];
  const expected = fixture.expected;
  const right = (out: Tensor | undefined) => withinTolerance(out, expected, graded.tolerance);
  if (inputs.x.ndim > 3) {
    const flat = (await call(context, { ...inputs, x: inputs.x.reshape(-1, ...inputs.x.shape.slice(-2)) }, numHeads));
    if (flat && flat.size === expected.size && right(flat.reshape(...expected.shape))) {
      return [{ id: 'mhsa_batch_dims', evidence: `With x reshaped to one batch dim, your output is right.` }];
    }
  }
  for (const [id, fixing, evidence] of fixingInputs(inputs, numHeads)) {
    if (right(await call(context, fixing, numHeads))) return [evidence ? { id, evidence } : { id }];
  }
  const out = outcome.kind === 'output' ? outcome.output : await call(context, inputs, numHeads);
  if (!out) return [];
  if (out.shape.join() === expected.shape.join()) {
    // Measured on the output itself: x plus the expected output.
    const minusX = { data: Float64Array.from(out.data, (v, i) => v - inputs.x.data[i]), shape: out.shape };
    if (inputs.x.shape.join() === out.shape.join() && withinTolerance(minusX, expected, graded.tolerance)) {
      return [{ id: 'mhsa_residual', evidence: 'Your output minus x is the expected output.' }];
    }
  }
  const ignored = await ignoredInputs(inputs, numHeads, out, graded, context, (changed, heads) => call(context, changed, heads));
  if (ignored.length) return ignored;
  const same = (probe: Tensor | undefined) => withinTolerance(probe, out, graded.tolerance);
  // With one feature per head, a plain reshape to [..., numHeads, seq, 1] is also what a projection read transposed gives.
  const dHead = inputs.x.shape[inputs.x.ndim - 1] / numHeads;
  for (const transposeBack of dHead > 1 ? [false, true] : []) {
    if (same(await reshapedHeads(inputs, numHeads, context, transposeBack))) {
      const merged = transposeBack ? 'merged back through [..., seq, numHeads, dHead]' : 'merged back by a plain reshape';
      return [{ id: 'heads_reshaped', evidence: `Multi-head attention around your own scaledDotProductAttention, with heads split by a plain reshape to [..., numHeads, seq, dHead] and ${merged}, gives your output.` }];
    }
  }
  const designed = await byDesign(inputs, numHeads, graded, fixture, context, (changed, heads) => call(context, changed, heads));
  return designed ? [designed] : [];
}
