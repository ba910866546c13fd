/**
 * The assignment's parts, and the switch that says which of them a course grades. A part is a group
 * of graded functions (their ids in adapters/functions.ts) switched on or off together: `core` is
 * CS336's exercise, the four functions the default handout grades; the others are the course's
 * optional parts (the seeds' Problems 2 and 3, Project 4's attention that returns its weights and
 * its multi-head attention with biases, and the gradients). A part that is off grades nothing: its
 * functions and cases are left out of the assignment (tests/assignment.ts), and the handout
 * (`npm run release`) ships neither its stubs nor its fixtures.
 *
 * The switch is SWITCH below. ATTENTION_PARTS overrides it without an edit, to try a preset:
 * `ATTENTION_PARTS=full npm run grade -- --reference`, `ATTENTION_PARTS=core,weights npm test`. In a
 * handout the release writes the parts it graded into RELEASED, and nothing overrides them there: a
 * student's environment cannot change what is graded. Nothing here imports the harness (lib/): the
 * file ships with the handout and is read by everything that reads the assignment.
 */

export interface Part {
  id: string;
  /** What the part asks for, in a few words. */
  title: string;
  /** Its graded functions, by id (adapters/functions.ts FunctionSpec.id). */
  functions: readonly string[];
  /** Graded by the 'default' switch. */
  default: boolean;
}

export const PARTS: readonly Part[] = [
  {
    id: 'core',
    title: "CS336's exercise: softmax, scaled dot-product attention, the causal mask, multi-head self-attention",
    default: true,
    functions: ['softmax', 'scaled_dot_product_attention', 'causal_mask', 'multihead_self_attention'],
  },
  {
    id: 'weights',
    title: "Project 4's attention, returning its weights, with or without the scale",
    default: false,
    functions: ['attention'],
  },
  {
    id: 'single_head',
    title: 'Problems 2 and 3: single-head attention with biased projections; multi-head attention with biases, returning its weights',
    default: false,
    functions: ['single_head_attention', 'multihead_attention'],
  },
  {
    id: 'gradients',
    title: 'the backward passes of softmax and of scaled dot-product attention',
    default: false,
    functions: ['softmax_backward', 'scaled_dot_product_attention_backward'],
  },
];

/** 'default': the parts marked default; 'full': every part; or the ids of the parts to grade. */
export type Switch = 'default' | 'full' | readonly string[];

/** Which parts this course grades. */
export const SWITCH: Switch = 'default';

/** The environment variable that overrides SWITCH (outside a handout): `full`, `default`, or ids joined by commas. */
export const OVERRIDE = 'ATTENTION_PARTS';

/** The parts a handout grades, written here by `npm run release` (releasedText); undefined outside a handout. */
const RELEASED: readonly string[] | undefined = undefined;

/** The declaration refuses the switch it was given; the harness says the message as one line (lib/grading/loadAssignment.ts). */
export class DeclarationError extends Error {
  override name = 'DeclarationError';
}

/** A switch as the environment variable spells it: `full`, `default`, or part ids joined by commas. */
export function parseSwitch(text: string): Switch {
  const trimmed = text.trim();
  if (trimmed === 'full' || trimmed === 'default') return trimmed;
  return trimmed.split(',').map((id) => id.trim()).filter(Boolean);
}

/**
 * The ids of the parts `chosen` grades, in PARTS' order (so that `weights,core` and `core,weights`
 * grade, and record, the same). `said` names where the switch came from, for the one line that
 * refuses an unknown id or an empty list.
 */
export function resolveSwitch(chosen: Switch, said: string, parts: readonly Part[] = PARTS): string[] {
  const known = parts.map((p) => p.id);
  if (chosen === 'default') return parts.filter((p) => p.default).map((p) => p.id);
  if (chosen === 'full') return known;
  const unknown = chosen.filter((id) => !known.includes(id));
  if (unknown.length > 0) {
    throw new DeclarationError(`${said}: no part named ${unknown.map((id) => `"${id}"`).join(', ')}; the parts are ${known.join(', ')} (or the presets default and full)`);
  }
  if (chosen.length === 0) throw new DeclarationError(`${said}: names no part; name some of ${known.join(', ')}, or a preset (default, full)`);
  return known.filter((id) => chosen.includes(id));
}

function resolved(): readonly string[] {
  if (RELEASED) return RELEASED;
  const override = process.env[OVERRIDE];
  if (override !== undefined && override.trim() !== '') return resolveSwitch(parseSwitch(override), `${OVERRIDE}=${override}`);
  return resolveSwitch(SWITCH, 'tests/parts.ts SWITCH');
}

/** The ids of the parts graded here. */
export const PARTS_ON: readonly string[] = resolved();

/** Whether function `id` belongs to one of the parts `on`. */
export function inParts(on: readonly string[], id: string, parts: readonly Part[] = PARTS): boolean {
  return parts.some((p) => on.includes(p.id) && p.functions.includes(id));
}

/**
 * The functions declared (adapters/functions.ts) that the parts `on` grade, in their order; each
 * declared function must belong to exactly one part, and each function a part names must be
 * declared: otherwise the declaration is refused, naming the function.
 */
export function ofParts<T extends { id: string }>(declared: readonly T[], on: readonly string[], parts: readonly Part[] = PARTS): T[] {
  for (const { id } of declared) {
    const owners = parts.filter((p) => p.functions.includes(id));
    if (owners.length !== 1) {
      throw new DeclarationError(`tests/parts.ts: function "${id}" is ${owners.length === 0 ? 'in no part' : `in ${owners.length} parts (${owners.map((p) => p.id).join(', ')})`}; list it in exactly one`);
    }
  }
  for (const part of parts) {
    const undeclared = part.functions.filter((id) => !declared.some((f) => f.id === id));
    if (undeclared.length > 0) throw new DeclarationError(`tests/parts.ts: part ${part.id} lists ${undeclared.join(', ')}, which adapters/functions.ts does not declare`);
  }
  return declared.filter((f) => inParts(on, f.id, parts));
}

/** The RELEASED line as this file writes it, and as a handout's copy holds it. */
const RELEASED_LINE = /^const RELEASED: readonly string\[\] \| undefined = .*;$/m;

/** This file's text (`text`) as a handout ships it: the parts `on` written into RELEASED. */
export function releasedText(text: string, on: readonly string[]): string {
  if (!RELEASED_LINE.test(text)) throw new DeclarationError('tests/parts.ts: no `const RELEASED: readonly string[] | undefined = …;` line for the release to fix the switch in');
  return text.replace(RELEASED_LINE, `const RELEASED: readonly string[] | undefined = ${JSON.stringify(on)};`);
}
