/**
 * The parts switch (tests/parts.ts): how a switch resolves and what it refuses, that the
 * assignment is made of the parts on only, that ATTENTION_PARTS overrides the switch outside a
 * handout and nothing overrides it inside one, that a handout ships the fixtures of its parts only,
 * and that a batch records its parts: a rerun with other parts regrades, and a merge refuses shards
 * graded with different ones.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ALL_FUNCTIONS, FUNCTIONS } from '../adapters/functions';
import { gradeBatch } from '../lib/batch/gradeBatch';
import { MergeError, mergeShards } from '../lib/batch/merge';
import { RECORD_FILE, type BatchRecord } from '../lib/batch/record';
import { difference, gradedWith } from '../lib/batch/provenance';
import { loadCaseFixtures } from '../lib/grading/grade';
import { PROJECT_ROOT, RUN_TS } from '../lib/paths';
import { buildHandout } from '../lib/release';
import { CauseBook } from '../lib/report/causes';
import { toGradescope } from '../lib/report/gradescope';
import { assignmentWith, ASSIGNMENT } from '../tests/assignment';
import { ALL_CASES, GRADED_CASES } from '../tests/cases';
import { MISTAKES } from '../tests/diagnosis/catalogue';
import { DeclarationError, ofParts, parseSwitch, PARTS, PARTS_ON, releasedText, resolveSwitch, type Part } from '../tests/parts';
import { grade, gradeOptions } from './grader/harness';
import { materialize, tempDir } from './grader/materialize';

const IDS = PARTS.map((p) => p.id);
const SAID = 'ATTENTION_PARTS=x';

describe('a switch resolves to the ids of its parts, in the declaration\'s order', () => {
  it.each([
    ['default: the parts marked default', 'default', PARTS.filter((p) => p.default).map((p) => p.id)],
    ['full: every part', 'full', IDS],
    ['a list, in any order, with spaces', ` ${IDS[1]} , core `, ['core', IDS[1]]],
  ])('%s', (_, text, ids) => {
    expect(resolveSwitch(parseSwitch(text), SAID)).toEqual(ids);
  });

  it('the default is the core part alone: the handout grades what it always did', () => {
    expect(resolveSwitch('default', SAID)).toEqual(['core']);
    expect(PARTS.find((p) => p.id === 'core')!.functions).toEqual(['softmax', 'scaled_dot_product_attention', 'causal_mask', 'multihead_self_attention']);
  });

  it.each([
    ['an unknown id, named with every known one', 'core,wieghts', `${SAID}: no part named "wieghts"; the parts are ${IDS.join(', ')} (or the presets default and full)`],
    ['a list of nothing', ' , ', `${SAID}: names no part; name some of ${IDS.join(', ')}, or a preset (default, full)`],
  ])('refuses %s, in one line', (_, text, said) => {
    expect(() => resolveSwitch(parseSwitch(text), SAID)).toThrow(new DeclarationError(said));
  });
});

describe('the assignment is made of the parts on', () => {
  const parts: Part[] = [
    { id: 'a', title: 'A', default: true, functions: ['f', 'g'] },
    { id: 'b', title: 'B', default: false, functions: ['h'] },
  ];
  const declared = [{ id: 'f' }, { id: 'g' }, { id: 'h' }];

  it('keeps the functions of the parts on, in their declared order', () => {
    expect(ofParts(declared, ['b'], parts)).toEqual([{ id: 'h' }]);
    expect(ofParts(declared, ['a', 'b'], parts)).toEqual(declared);
  });

  it.each([
    ['a function in no part', [...declared, { id: 'k' }], parts, 'tests/parts.ts: function "k" is in no part; list it in exactly one'],
    ['a function in two parts', declared, [...parts, { id: 'c', title: 'C', default: false, functions: ['g'] }], 'tests/parts.ts: function "g" is in 2 parts (a, c); list it in exactly one'],
    ['a part naming an undeclared function', declared, [...parts, { id: 'c', title: 'C', default: false, functions: ['z'] }], 'tests/parts.ts: part c lists z, which adapters/functions.ts does not declare'],
  ])('refuses %s', (_, functions, declaredParts, said) => {
    expect(() => ofParts(functions, ['a'], declaredParts)).toThrow(said);
  });

  it("this assignment's: every declared function in exactly one part, the switch's functions and cases only", () => {
    expect(ofParts(ALL_FUNCTIONS, IDS).map((f) => f.id)).toEqual(ALL_FUNCTIONS.map((f) => f.id));
    const on = new Set(PARTS.filter((p) => PARTS_ON.includes(p.id)).flatMap((p) => p.functions));
    expect(FUNCTIONS.map((f) => f.id)).toEqual(ALL_FUNCTIONS.filter((f) => on.has(f.id)).map((f) => f.id));
    expect(GRADED_CASES).toEqual(ALL_CASES.filter((c) => on.has(c.fn)));
    expect(ASSIGNMENT.cases).toEqual(GRADED_CASES);
    expect(ASSIGNMENT.parts!.on).toEqual(PARTS_ON);
    for (const id of IDS) {
      const only = assignmentWith([id]);
      const mine = PARTS.find((p) => p.id === id)!.functions;
      expect(only.functions.map((f) => f.id), id).toEqual(ALL_FUNCTIONS.filter((f) => mine.includes(f.id)).map((f) => f.id));
      expect(only.cases.every((c) => mine.includes(c.fn)), id).toBe(true);
    }
  });
});

/** tests/parts.ts as `text`, run in a sandbox of its own with `env` as its environment: what it resolves. */
function partsOn(text: string, env: Record<string, string | undefined>): readonly string[] {
  const { outputText } = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
  const module = { exports: {} as { PARTS_ON?: readonly string[] } };
  vm.runInNewContext(outputText, { module, exports: module.exports, process: { env } });
  return module.exports.PARTS_ON!;
}

describe('ATTENTION_PARTS overrides the switch outside a handout, and nothing does inside one', () => {
  const source = fs.readFileSync(path.join(PROJECT_ROOT, 'tests', 'parts.ts'), 'utf8');

  it('in the project: the switch, or the variable when it is set', () => {
    expect(partsOn(source, {})).toEqual(resolveSwitch('default', SAID));
    expect(partsOn(source, { ATTENTION_PARTS: 'full' })).toEqual(IDS);
    expect(partsOn(source, { ATTENTION_PARTS: '' })).toEqual(resolveSwitch('default', SAID));
  });

  it("in a handout: the parts it was released with, whatever the student's environment says", () => {
    const shipped = buildHandout(assignmentWith(['core'])).files.get('tests/parts.ts')!.toString('utf8');
    expect(shipped).toBe(releasedText(source, ['core']));
    expect(shipped).toContain('const RELEASED: readonly string[] | undefined = ["core"];');
    for (const env of [{}, { ATTENTION_PARTS: 'full' }, { ATTENTION_PARTS: 'nonsense' }]) expect(partsOn(shipped, env)).toEqual(['core']);
    const full = buildHandout(assignmentWith(IDS)).files.get('tests/parts.ts')!.toString('utf8');
    expect(partsOn(full, { ATTENTION_PARTS: 'core' })).toEqual(IDS);
  });

  it('refuses to release a switch file it cannot fix', () => {
    expect(() => releasedText(source.replace('const RELEASED', 'const SHIPPED'), ['core'])).toThrow(/no `const RELEASED: readonly string\[\] \| undefined = …;` line/);
  });

  it.each([
    ['npm run grade', 'scripts/grade.ts', ['--reference']],
    ['npm run release', 'scripts/release.ts', ['--out', 'never-written']],
  ])('%s with an unknown part: one line naming it and the known ones, exit 2', (_, script, args) => {
    const run = spawnSync(process.execPath, [RUN_TS, script, ...args], {
      cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, ATTENTION_PARTS: 'core,gradient' },
    });
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([`ATTENTION_PARTS=core,gradient: no part named "gradient"; the parts are ${IDS.join(', ')} (or the presets default and full)`]);
    expect(run.status).toBe(2);
    expect(fs.existsSync(path.join(PROJECT_ROOT, 'never-written'))).toBe(false);
  });
});

describe('a handout ships the fixtures of its cases only', () => {
  it('a function left out leaves its fixtures out, visible and hidden', () => {
    const without = ASSIGNMENT.cases.filter((c) => c.fn !== 'causal_mask');
    const handout = buildHandout({ ...ASSIGNMENT, cases: without });
    const shipped = [...handout.files.keys()].filter((file) => file.startsWith('fixtures/'));
    expect(shipped.filter((file) => file.startsWith('fixtures/causal_mask'))).toEqual([]);
    const manifest = JSON.parse(handout.files.get('fixtures/manifest.json')!.toString('utf8')) as { fixtures: Record<string, unknown> };
    expect(Object.keys(manifest.fixtures).sort()).toEqual([...new Set(without.filter((c) => !c.hidden).map((c) => c.fixture))].sort());
    const whole = buildHandout(ASSIGNMENT);
    const hiddenCausal = new Set(ASSIGNMENT.cases.filter((c) => c.fn === 'causal_mask' && c.hidden).map((c) => c.fixture)).size;
    expect(handout.hiddenFixtures).toBe(whole.hiddenFixtures - hiddenCausal);
  });
});

describe('a batch records the parts it graded', () => {
  const work = tempDir('parts');
  const submissions = path.join(work, 'submissions');
  for (const name of ['ada', 'bo']) materialize(path.join(PROJECT_ROOT, 'student', 'index.ts'), submissions, name);
  const options = (on: readonly string[]) => {
    const assignment = assignmentWith(on);
    const cases = assignment.cases.filter((c) => !c.hidden);
    return { ...gradeOptions(), assignment, cases, fixtures: loadCaseFixtures(assignment, cases), jobs: 1, force: false };
  };
  const record = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, RECORD_FILE), 'utf8')) as BatchRecord;
  const other = ['core', IDS[1]];

  it('in each result and the batch record; a rerun with other parts regrades every submission', async () => {
    const out = path.join(work, 'rerun');
    await gradeBatch(submissions, out, options(['core']));
    expect(record(out).graded_with.parts).toEqual(['core']);
    const again = await gradeBatch(submissions, out, options(['core']));
    expect(again.graded).toEqual([]);
    const switched = await gradeBatch(submissions, out, options(other));
    expect([...switched.regraded.values()]).toEqual(['other_options', 'other_options']);
    expect(record(out).graded_with.parts).toEqual(other);
  });

  it('a merge refuses shards graded with other parts than the checkout grades, naming theirs', async () => {
    const shards = [1, 2].map((i) => path.join(work, `shard-${i}`));
    await gradeBatch(submissions, shards[0], { ...options(['core']), shard: { index: 1, count: 2 } });
    await gradeBatch(submissions, shards[1], { ...options(other), shard: { index: 2, count: 2 } });
    const book = { functions: ASSIGNMENT.functions, causes: new CauseBook(MISTAKES), title: ASSIGNMENT.page.title };
    const merge = (cases: typeof ASSIGNMENT.cases) => () => mergeShards(shards, path.join(work, 'merged'), cases, book);
    expect(merge(ASSIGNMENT.cases)).toThrow(MergeError);
    expect(merge(ASSIGNMENT.cases)).toThrow(`${shards[1]} was graded with another case table than this checkout's (its parts: ${other.join(', ')}): merge with the checkout that graded it, or regrade`);
    expect(merge(assignmentWith(other).cases)).toThrow(`${shards[0]} was graded with another case table than this checkout's (its parts: core)`);
  });

  it('the difference of two records names the parts first among what the assignment decides', () => {
    const run = (parts?: readonly string[]) => gradedWith(gradeOptions(), ASSIGNMENT.cases, {}, parts);
    expect(difference(run(other), run(['core']))).toBe(`the parts ${other.join(', ')} instead of core`);
    expect(difference(run(['core']), run())).toBe('the parts core instead of no parts recorded');
    expect(difference(run(['core']), run(['core']))).toBeUndefined();
  });

  it('a single result says its parts too (results.json of npm run grade -- --json, Gradescope)', async () => {
    const result = await grade(path.join(PROJECT_ROOT, 'student'), 'stubs', { assignment: assignmentWith(other) });
    expect(result.parts).toEqual(other);
    expect(toGradescope(result).extra_data.parts).toEqual(other);
  });
});
