/**
 * Hidden cases stay hidden until grades are published: a submission that prints every input it
 * has ever been given (so that anything of a hidden case it saw earlier would show in a later
 * test's output) and fails its attention, graded with the hidden cases. No field a student sees
 * before publication (visible tests' output, the top-level output) holds a hidden case's input,
 * name or result; the hidden tests themselves keep everything, for after publication. Nor does
 * a visible test's diagnosis tell whether the hidden cases ran: its probes run where none did.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { loadCaseFixtures } from '../../lib/grading/grade';
import { toGradescope } from '../../lib/report/gradescope';
import { GRADED_CASES } from '../../tests/cases';
import { grade, gradeOptions } from './harness';
import { materialize, tempDir } from './materialize';
import { ASSIGNMENT } from '../../tests/assignment';
import { ANSWER_CHANGES } from '../../lib/diagnosis/explain';

const PRINTS_INPUTS = `import type { Tensor } from '../lib/tensor';
import * as base from './base';

const seen: string[] = [];
/** Everything this process was ever given: a token per tensor (its shape and first value) or number. */
function remember(...args: unknown[]): void {
  for (const a of args) {
    const t = a as Tensor | undefined;
    if (typeof a === 'number') seen.push(\`n=\${a}\`);
    else if (t && t.shape) seen.push(\`[\${t.shape.join('x')}]@\${t.data[0]}\`);
  }
  console.log(\`SEEN \${seen.join(' ')}\`);
}
export function softmax(x: Tensor, dim: number): Tensor {
  remember(x, dim);
  return base.softmax(x, dim);
}
export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  remember(Q, K, V, mask);
  const out = base.scaledDotProductAttention(Q, K, V, mask);
  return { shape: out.shape, data: Array.from(out.data, (v) => v * 1.5) } as unknown as Tensor;
}
export function causalMask(seqLen: number): Tensor {
  remember(seqLen);
  return base.causalMask(seqLen);
}
export function multiHeadSelfAttention(x: Tensor, w: base.Weights, numHeads: number, mask?: Tensor): Tensor {
  remember(x, numHeads, mask);
  return base.multiHeadSelfAttention(x, w, numHeads, mask);
}
`;

it('nothing of a hidden case reaches a visible test or the top-level output', async () => {
  const dir = materialize(path.join(__dirname, 'misbehaving', 'base.ts'), tempDir('hidden'), 'prints_inputs');
  fs.writeFileSync(path.join(dir, 'index.ts'), PRINTS_INPUTS);
  const fixtures = loadCaseFixtures(ASSIGNMENT, GRADED_CASES);
  const result = await grade(dir, 'prints_inputs', { ...gradeOptions(), cases: GRADED_CASES, fixtures });
  const written = toGradescope(result);
  const hiddenCases = GRADED_CASES.filter((c) => c.hidden);
  // What a hidden case gave the function, in the submission's own words.
  const tokensOf = (c: (typeof GRADED_CASES)[number]) => Object.values(fixtures.get(c.fixture)!.inputs).map((t) => `[${t.shape.join('x')}]@${t.data[0]}`);
  const visibleTokens = new Set(GRADED_CASES.filter((c) => !c.hidden).flatMap(tokensOf));
  // Those only a hidden case has (a visible case's 10×10 mask may start with the same 1).
  const tokens = hiddenCases.flatMap(tokensOf).filter((token) => !visibleTokens.has(token));
  expect(tokens.length).toBeGreaterThan(5);
  const visibleToStudents = [written.output, ...written.tests.filter((t) => t.visibility === 'visible').map((t) => `${t.name}\n${t.output}`)].join('\n');
  expect(visibleToStudents).toContain('SEEN '); // it did print, and its prints are shown
  for (const token of tokens) expect(visibleToStudents, token).not.toContain(token);
  for (const c of hiddenCases) expect(visibleToStudents).not.toContain(c.name);
  expect(written.output).toMatch(new RegExp(`^Visible tests: .* points, \\d+ of ${GRADED_CASES.length - hiddenCases.length} passed`));
  // The hidden tests keep what they printed, for after publication.
  const hiddenOutput = written.tests.filter((t) => t.visibility === 'after_published').map((t) => t.output).join('\n');
  expect(tokens.some((token) => hiddenOutput.includes(token))).toBe(true);
});

/**
 * Attention off by a factor of 1.5, which turns to 2 once its realm (globalThis, which a new
 * instance of the submission does not reset) has seen an input of a shape only hidden cases have.
 * The shapes are written into its source, as a student could learn them from a published grade.
 */
const changesAfterHidden = (hiddenShapes: string[]) => `import type { Tensor } from '../lib/tensor';
import * as base from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

const HIDDEN_SHAPES = new Set(${JSON.stringify(hiddenShapes)});
const realm = globalThis as { sawHidden?: boolean };

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  if (HIDDEN_SHAPES.has(Q.shape.join('x'))) realm.sawHidden = true;
  return base.scaledDotProductAttention(Q, K, V, mask).mul(realm.sawHidden ? 2 : 1.5);
}
`;

it("a visible test's diagnosis is made where no hidden input was seen: the same with and without the hidden cases", async () => {
  const fixtures = loadCaseFixtures(ASSIGNMENT, GRADED_CASES);
  const shapes = (cases: typeof GRADED_CASES) => new Set(cases.filter((c) => c.fn === 'scaled_dot_product_attention').map((c) => fixtures.get(c.fixture)!.inputs.q.shape.join('x')));
  const visible = shapes(GRADED_CASES.filter((c) => !c.hidden));
  const hiddenOnly = [...shapes(GRADED_CASES.filter((c) => c.hidden))].filter((shape) => !visible.has(shape));
  expect(hiddenOnly.length).toBeGreaterThan(0);
  const dir = materialize(path.join(__dirname, 'misbehaving', 'base.ts'), tempDir('hidden-diagnosis'), 'changes_after_hidden');
  fs.writeFileSync(path.join(dir, 'index.ts'), changesAfterHidden(hiddenOnly));
  const [withHidden, visibleOnly] = await Promise.all([
    grade(dir, 'changes_after_hidden', { ...gradeOptions(), cases: GRADED_CASES, fixtures }),
    grade(dir, 'changes_after_hidden'),
  ]);
  const visibleAttention = (result: typeof withHidden) => result.cases.filter((c) => !c.hidden && c.fn === 'scaled_dot_product_attention');
  const diagnoses = (result: typeof withHidden) => Object.fromEntries(visibleAttention(result).map((c) => [c.name, c.diagnosis?.message]));
  // Its hidden tests met the factor of 2: the realm of the child that ran them saw their inputs.
  expect(withHidden.cases.filter((c) => c.hidden && c.fn === 'scaled_dot_product_attention').every((c) => c.status === 'failed')).toBe(true);
  // Each visible failure diagnosed, and not as an answer that changed when called again.
  expect(visibleAttention(visibleOnly).every((c) => c.diagnosis !== undefined && c.diagnosis.mistake !== ANSWER_CHANGES.id)).toBe(true);
  expect(diagnoses(withHidden)).toEqual(diagnoses(visibleOnly));
});
