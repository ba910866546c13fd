/**
 * A case's call made from a function's spec (functions.ts), the same in every place student code
 * is called: the grader's child, npm test, the diagnosis's probes. The arguments come from the
 * case's inputs and params as the spec says; the promised output shapes from the inputs alone, so
 * sending them with a hidden case's inputs reveals nothing the inputs do not.
 */
import { broadcastShapes } from '../shape';
import { Tensor } from '../tensor';
import type { ArgSpec, Dim, FunctionSpec, ShapeRule, Source } from './functions';
import { partsOfCall } from './functions';

/** A case's arguments as data: named input tensors and named number params. */
export interface CaseInputs {
  params: Record<string, number>;
  inputs: Record<string, Tensor>;
}

const MISSING = Symbol('missing');

function valueOf(source: Source, { params, inputs }: CaseInputs): unknown {
  if ('input' in source) return Object.hasOwn(inputs, source.input) ? inputs[source.input] : MISSING;
  if (!Object.hasOwn(params, source.param)) return MISSING;
  return source.as === 'boolean' ? params[source.param] !== 0 : params[source.param];
}

function argumentOf(arg: ArgSpec, call: CaseInputs): unknown {
  if (!('object' in arg)) return valueOf(arg as Source, call);
  const fields = Object.entries(arg.object).flatMap(([field, source]) => {
    const value = valueOf(source, call);
    return value === MISSING ? [] : [[field, value] as const];
  });
  return fields.length === 0 && arg.optional ? MISSING : Object.fromEntries(fields);
}

/**
 * The arguments of the call, in order; an optional one the case lacks is `undefined` (passed, as
 * a caller in the course's Python passes `mask=None`). A required one the case lacks is the
 * declaration's mistake, not the student's.
 */
export function argumentsOf(spec: FunctionSpec, call: CaseInputs): unknown[] {
  return spec.args.map((arg, i) => {
    const value = argumentOf(arg, call);
    if (value !== MISSING) return value;
    if (!arg.optional) throw new Error(`${spec.export}: argument ${i + 1} is not optional, and the case gives none`);
    return undefined;
  });
}

/** Calls `fn` (the submission's export, or anything callable) with the case's arguments. */
export function invoke(spec: FunctionSpec, fn: (...args: unknown[]) => unknown, call: CaseInputs, self?: unknown): unknown {
  return fn.apply(self, argumentsOf(spec, call));
}

function dimOf(dim: Dim, { params, inputs }: CaseInputs): number {
  if (typeof dim === 'number') return dim;
  if ('param' in dim) return params[dim.param];
  const shape = inputs[dim.input].shape;
  return shape[dim.dim < 0 ? shape.length + dim.dim : dim.dim];
}

function shapeOf(rule: ShapeRule, call: CaseInputs): number[] {
  let lead: number[] = [];
  for (const name of rule.lead?.inputs ?? []) {
    const t = call.inputs[name];
    if (t) lead = broadcastShapes('output', lead, t.shape.slice(0, t.shape.length - rule.lead!.keep));
  }
  const dims = rule.dims.map((d) => dimOf(d, call));
  return [...lead, ...dims];
}

/**
 * The shape the contract promises for each part the call returns (partsOfCall), for these inputs;
 * undefined for a part whose inputs do not fit the contract (a probe's may not), and then no shape
 * is promised.
 */
export function expectedShapes(spec: FunctionSpec, call: CaseInputs): (number[] | undefined)[] {
  return partsOfCall(spec, call.params).map((part) => {
    try {
      const shape = shapeOf(part.shape, call);
      return shape.every((n) => Number.isSafeInteger(n) && n >= 0) ? shape : undefined;
    } catch {
      return undefined;
    }
  });
}

/** The export of `impl` the spec names (a submission, the reference, an oracle), called with the case's arguments. */
export function callExport(spec: FunctionSpec, impl: object, call: CaseInputs): unknown {
  const fn = (impl as Record<string, unknown>)[spec.export];
  if (typeof fn !== 'function') throw new Error(`no function ${spec.export} to call`);
  return invoke(spec, fn as (...args: unknown[]) => unknown, call, impl);
}
