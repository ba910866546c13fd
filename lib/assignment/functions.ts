/**
 * A graded function as data: the export a submission must provide, how a case's inputs and params
 * become its arguments, what it returns (one tensor, or a named tuple of them) and the shape each
 * returned tensor must have. The assignment declares these (adapters/); the harness reads them
 * and never names a function itself. They are plain JSON: the grader's child receives the specs of
 * the functions it runs with its load message, so no runner table exists anywhere.
 */

/** Where one value of a call comes from: a case's input tensor, or one of its params. */
export type Source =
  | { input: string }
  /** A param as a number, or read as a boolean (0 or 1 in the fixture). */
  | { param: string; as?: 'boolean' };

/**
 * One argument. A `Source`, or an object of sources (named fields, e.g. a weights record or an
 * options bag). `name`: what the student's code calls it (`Q`, `weights`), in messages about it;
 * an object's fields by their keys (`weights.qProj`). `optional`: `undefined` when the case lacks
 * it (an object when it lacks every field).
 */
export type ArgSpec = { name: string; optional?: true } & (Source | { object: Record<string, Source> });

/** What a returned tensor holds: float values; a 0/1 mask (booleans allowed); integers (indices). */
export type PartKind = 'float' | 'mask' | 'index';

/** One output dim: a number, a dim of an input (negative counts from the end), or a param. */
export type Dim = number | { input: string; dim: number } | { param: string };

/**
 * The shape the contract promises for an output, from the call's inputs alone: the broadcast of
 * the leading dims of `lead.inputs` (each shape without its last `keep` dims; absent inputs are
 * skipped), then `dims`.
 */
export interface ShapeRule {
  lead?: { inputs: string[]; keep: number };
  dims: Dim[];
}

/** One tensor of what a function returns. */
export interface PartSpec {
  /** The part's name: the field of a tuple return (`output`, `weights`), or the function's id for a single tensor. */
  name: string;
  kind: PartKind;
  shape: ShapeRule;
  /**
   * A tuple's part that a flag leaves out: the name of a param (`as: 'boolean'`) which, when a call
   * sets it to 0 (false), asks for no such part. The function then returns no such field (or
   * undefined, or null), and nothing of it is compared. Never a tuple's first part: a case's
   * expected output is its first part.
   */
  omittedWhenFalse?: string;
}

export interface FunctionSpec {
  /** The id cases refer to and test names carry (snake_case): `-t <id>` selects its tests. */
  id: string;
  /** The name `student/index.ts` exports. */
  export: string;
  args: ArgSpec[];
  /**
   * Where a case's property checks (cases.ts PropertyCheck) read rows of probabilities: each row's
   * first `columns` entries of `part` (every entry when absent; the only part when `part` is), and
   * the case's input `mask`, broadcast to them. Absent: the function's cases declare no checks.
   */
  rows?: { part?: string; columns?: Dim; mask?: string };
  /**
   * One part: the function returns that tensor. Several (`tuple`): it returns an object with a
   * tensor in each named field.
   */
  returns: { tuple: false; part: PartSpec } | { tuple: true; parts: PartSpec[] };
  /** For people: the signature as the README's table shows it, a sentence on what it does, and a short name for narrow places (a report's column heads). */
  signature: string;
  summary: string;
  short: string;
}

/** How the student's code names each input tensor of a call (the case's input `q_proj` is `weights.qProj`). */
export function inputNames(spec: FunctionSpec): Record<string, string> {
  const names: Record<string, string> = {};
  for (const arg of spec.args) {
    if ('input' in arg) names[arg.input] = arg.name;
    if ('object' in arg) for (const [field, source] of Object.entries(arg.object)) if ('input' in source) names[source.input] = `${arg.name}.${field}`;
  }
  return names;
}

/** The parts of what a function returns, in order. */
export function partsOf(spec: FunctionSpec): PartSpec[] {
  return spec.returns.tuple ? spec.returns.parts : [spec.returns.part];
}

/** The parts a call with these params returns, in order: every part but those its flags leave out (PartSpec.omittedWhenFalse). */
export function partsOfCall(spec: FunctionSpec, params: Readonly<Record<string, number>>): PartSpec[] {
  return partsOf(spec).filter((p) => p.omittedWhenFalse === undefined || params[p.omittedWhenFalse] !== 0);
}

/** A function's spec by id; an unknown id is the harness's own mistake (a case naming no declared function). */
export function specOf(specs: readonly FunctionSpec[], id: string): FunctionSpec {
  const spec = specs.find((s) => s.id === id);
  if (!spec) throw new Error(`no graded function "${id}" is declared (known: ${specs.map((s) => s.id).join(', ')})`);
  return spec;
}
