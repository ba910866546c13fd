/**
 * `--variants SECRET`: each submission's hidden cases are drawn from the secret and its name, the
 * same secret and name give the same cases, and the draws never fail a correct solution (here on a
 * few dozen draws; `npm run bench:variants` grades 1,000 and docs/benchmarks.md has the figures).
 * The grader draws them in the grading process: the child gets the drawn inputs, the expected
 * values never leave the parent, and a batch records a hash of the secret, never the secret.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Submission } from '../adapters';
import { gradeBatch } from '../lib/batch/gradeBatch';
import { loadCaseFixtures } from '../lib/grading/grade';
import type { LoadedFixture } from '../lib/model/fixtures';
import { secretHash } from '../lib/model/secret';
import type { Variants } from '../lib/model/variants';
import { PROJECT_ROOT } from '../lib/paths';
import { loadVariants } from '../reference/fixtures/variants';
import { GRADED_CASES, type GradedCase } from '../tests/cases';
import { caller } from './calls';
import { BUGS, CORRECT } from './catalogue';
import { gradeDraws } from './gradeDraws';
import { gradeInProcess, judgeCase } from './gradeInProcess';
import { grade, gradeOptions } from './grader/harness';
import { materialize, tempDir } from './grader/materialize';
import { ASSIGNMENT } from '../tests/assignment';

const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`variants.test.ts: fast-check seed ${SEED} (FC_SEED=${SEED} replays this run)`);

const hidden = GRADED_CASES.filter((c) => c.hidden);
/**
 * This run's secret, each name's hidden cases drawn once: the tests below grade the same few names'
 * draws (fc.sample with one seed begins with the same names whatever the number of runs), and a
 * grading changes no drawn input (each call gets copies, selftest/calls.ts).
 */
const RUN_VARIANTS = loadVariants(`secret ${SEED}`);
const drawnOnce = new Map<string, Map<string, LoadedFixture>>();
const variants: Variants = {
  secretSha256: RUN_VARIANTS.secretSha256,
  draw(name, cases) {
    if (cases.length !== hidden.length || cases.some((c, i) => c !== hidden[i])) return RUN_VARIANTS.draw(name, cases);
    if (!drawnOnce.has(name)) drawnOnce.set(name, RUN_VARIANTS.draw(name, hidden));
    return drawnOnce.get(name)!;
  },
};
/**
 * The hidden cases `impl` fails on a draw, judged as gradeInProcess judges them (judgeCase: a call
 * that throws fails) but not diagnosed: the tests that read only which cases fail need no diagnosis, and a
 * drawn case's diagnosis is held below ("a drawn case is diagnosed as a stored one").
 */
function failedOn(impl: Partial<Submission>, label: string, drawn: Map<string, LoadedFixture>): GradedCase[] {
  const call = caller(impl, label);
  return hidden.filter((graded) => !judgeCase(call, graded, drawn.get(graded.fixture)!).passed);
}
const withInputs = hidden.filter((c) => c.fn !== 'causal_mask');
const inputsOf = (secret: string, name: string) =>
  [...loadVariants(secret).draw(name, hidden)].map(([key, c]) => [key, Object.fromEntries(Object.entries(c.inputs).map(([n, t]) => [n, [t.shape, Array.from(t.data)]]))] as const);

describe('a submission\'s hidden cases come from the secret and its name', () => {
  it('the same secret and name give the same cases, expected values too', () => {
    const [a, b] = [loadVariants('course secret').draw('ada', hidden), loadVariants('course secret').draw('ada', hidden)];
    for (const c of hidden) {
      expect(Array.from(a.get(c.fixture)!.expected.data), c.name).toEqual(Array.from(b.get(c.fixture)!.expected.data));
    }
    expect(inputsOf('course secret', 'ada')).toEqual(inputsOf('course secret', 'ada'));
  });

  it('another name or another secret gives other inputs to every case that has any', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string({ minLength: 1 }), (one, other, secret) => {
        fc.pre(one !== other);
        const [a, b] = [new Map(inputsOf(secret, one)), new Map(inputsOf(secret, other))];
        const c = new Map(inputsOf(`${secret}!`, one));
        for (const graded of withInputs) {
          expect(a.get(graded.fixture), `${graded.name}: ${JSON.stringify(one)} and ${JSON.stringify(other)}`).not.toEqual(b.get(graded.fixture));
          expect(a.get(graded.fixture), `${graded.name}: another secret`).not.toEqual(c.get(graded.fixture));
        }
      }),
      { seed: SEED, numRuns: 5 },
    );
  });
});

describe('draws never fail a correct solution, and the four mistakes fail theirs', () => {
  let correct: { name: string; impl: Partial<Submission> }[] = [];
  beforeAll(async () => {
    correct = await Promise.all(CORRECT.map(async (e) => ({ name: e.name, impl: (await import(e.file)) as Partial<Submission> })));
  });

  it('every correct solution gets full marks on the hidden cases drawn for 24 names', async () => {
    const names = fc.sample(fc.string({ maxLength: 30 }), { seed: SEED, numRuns: 24 });
    const graded = await gradeDraws(correct, variants, names);
    expect(graded.failures).toEqual([]);
    expect(graded.calls).toBe(24 * hidden.length * CORRECT.length);
  });

  const issue29 = BUGS.filter((b) => /^(softmax_negative_dim|mask_partial_broadcast|attention_no_batch_dims|mhsa_kv_cache)/.test(b.name));
  it.each(issue29.map((b) => [b.name, b] as const))('%s loses hidden points on its own function in every draw, and on no other', async (_, entry) => {
    const impl = (await import(entry.file)) as Partial<Submission>;
    for (const name of fc.sample(fc.string({ maxLength: 30 }), { seed: SEED, numRuns: 6 })) {
      const drawn = variants.draw(name, hidden);
      const failed = failedOn(impl, entry.name, drawn);
      expect(failed.length, `drawn for ${JSON.stringify(name)}`).toBeGreaterThan(0);
      expect(failed.filter((graded) => graded.fn !== entry.breaks).map((graded) => graded.name)).toEqual([]);
    }
  });
});

describe('a drawn case is diagnosed as a stored one', () => {
  // The mistakes' outputs (softmax) and the expected probabilities come from the reference, built
  // for the drawn case in this process (lib/model/caseBuild.ts) as the generator builds a stored one.
  it.each([['softmax_whole_tensor'], ['mask_inverted'], ['returns_probabilities']])('%s', async (name) => {
    const entry = BUGS.find((b) => b.name === name)!;
    const impl = (await import(entry.file)) as Partial<Submission>;
    const drawn = variants.draw('ada', hidden);
    const results = await gradeInProcess(impl, name, hidden, (c) => drawn.get(c.fixture)!);
    expect(results.filter((r) => !r.passed && r.diagnosis?.mistake === entry.mistake).length).toBeGreaterThan(0);
  });
});

describe('stability tricks lose the hidden rows-apart test in every draw, and nothing else', () => {
  it.each([
    ['stability_row_mean', 'test_softmax_rows_apart_hidden'],
    ['stability_first_element', 'test_softmax_rows_apart_hidden'],
    ['stability_clamp_scores', 'test_scaled_dot_product_attention_rows_apart_hidden'],
  ])('%s', async (name, test) => {
    const impl = (await import(path.join(__dirname, 'catalogue', 'bugs', `${name}.ts`))) as Partial<Submission>;
    for (const drawnFor of fc.sample(fc.string({ maxLength: 30 }), { seed: SEED, numRuns: 6 })) {
      const drawn = variants.draw(drawnFor, hidden);
      expect(failedOn(impl, name, drawn).map((graded) => graded.name), `drawn for ${JSON.stringify(drawnFor)}`).toEqual([test]);
    }
  });
});

describe('the grader draws them in the grading process', () => {
  const work = tempDir('variants');
  // A correct solution whose softmax prints the first value and shape of every x it is given: what the child received, seen from outside.
  const printing = path.join(work, 'printing.ts');
  fs.writeFileSync(printing, [
    "import type { Tensor } from '../../../lib/tensor';",
    "import { softmax as right } from './base';",
    "export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';",
    'export function softmax(x: Tensor, dim: number) {',
    "  console.log(`x [${x.shape.join(', ')}] ${x.data[0]}`);",
    '  return right(x, dim);',
    '}',
  ].join('\n'));

  it('full marks for a correct solution; each name its own inputs; a regrade the same', async () => {
    const dir = materialize(printing, work, 'printing');
    const options = { cases: GRADED_CASES, fixtures: loadCaseFixtures(ASSIGNMENT, GRADED_CASES), variants: loadVariants('course secret') };
    const [ada, again, bo] = [await grade(dir, 'ada', options), await grade(dir, 'ada', options), await grade(dir, 'bo', options)];
    expect(ada.cases.filter((c) => c.status !== 'passed').map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
    const printed = (r: typeof ada) => r.cases.filter((c) => c.hidden && c.fn === 'softmax').map((c) => c.output);
    expect(printed(again)).toEqual(printed(ada));
    expect(printed(bo)).not.toEqual(printed(ada));
    // The child got this name's drawn inputs, not the stored hidden fixture's.
    const drawnX = loadVariants('course secret').draw('ada', hidden).get('hidden/softmax')!.inputs.x;
    expect(ada.cases.find((c) => c.name === 'test_softmax_hidden')!.output).toContain(`x [${drawnX.shape.join(', ')}] ${drawnX.data[0]}`);
  });

  it('a batch records a hash of the secret among its options, and the secret nowhere', async () => {
    const subs = path.join(work, 'subs');
    materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), subs, 'ada');
    const out = path.join(work, 'out');
    const secret = 'a secret no file may hold';
    await gradeBatch(subs, out, { ...gradeOptions({ cases: GRADED_CASES, fixtures: loadCaseFixtures(ASSIGNMENT, GRADED_CASES) }), variants: loadVariants(secret), jobs: 1, force: true });
    const record = JSON.parse(fs.readFileSync(path.join(out, 'batch.json'), 'utf8'));
    expect(record.graded_with.options.variants).toBe(secretHash(secret));
    const files = fs.readdirSync(out, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
    expect(files.filter((file) => fs.readFileSync(file, 'latin1').includes(secret))).toEqual([]);
  });
});
