/**
 * One verdict for every shape of folder (issue 28): each reason the grader refuses, or fails to
 * load, a submission that vitest would run (an unused import of a deleted file passed 21 tests and
 * scored 0), and each shape both accept, is graded by both paths. Every test must end alike, a
 * folder that stops the grader must fail every test of `npm test` with the grader's words, and a
 * folder both run must load the same files (a .js beside a .ts of the same name is not the one run).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NESTING_CONSTRUCTS, stepsWithin } from '../lib/bench/nesting';
import { NESTING_LIMIT } from '../lib/text/nesting';
import { visibleCases } from '../tests/cases';
import { grade } from './grader/harness';
import { sayer } from './grader/sayer';
import { tempDir } from './grader/materialize';
import { expectSameEndings, SHARED_RUN_LIMIT_MS, sharedVitestRun } from './twoPathsKit';

const work = tempDir('load-shapes');
const BASE = fs.readFileSync(path.join(__dirname, 'catalogue', 'bugs', 'base.ts'), 'utf8');
/** A correct index.ts that takes one function from elsewhere and the rest from base.ts. */
const takingSoftmaxFrom = (specifier: string) => `export { softmax } from '${specifier}';\nexport { scaledDotProductAttention, causalMask, multiHeadSelfAttention } from './base';\n`;
const SOFTMAX = "import type { Tensor } from '../lib/tensor';\nexport { softmax } from './base';\nexport type Unused = Tensor;\n";
/** A softmax that returns zeros: in JavaScript both loaders run as it is. */
const WRONG_SOFTMAX_JS = 'export function softmax(x) {\n  return { shape: x.shape, data: new Float64Array(x.data.length) };\n}\n';

/** A kind of each family of nesting (brackets, prefix runs, right and left chains, statements, types), each exactly at the bound, in a function nothing calls. */
const AT_THE_BOUND = ['parentheses', 'templates', 'not', 'conditionals', 'sums', 'elseIfsAfterSemicolons', 'typeArguments'].map((name) => {
  const uncalled = (statement: string) => `export function deep_${name}(a: any, x: any): void {\n  ${statement}\n}\n`;
  return uncalled(NESTING_CONSTRUCTS[name].source(stepsWithin(NESTING_CONSTRUCTS[name], NESTING_LIMIT, uncalled)));
}).join('');

interface Shape {
  name: string;
  /** The folder's files by path (index.ts and base.ts unless given); a value `{ link }` is a symbolic link to that path. */
  files: Record<string, string | { link: string }>;
  /** What the grader must say: every test passes, or every test ends with this status and a reason matching. */
  expect: 'passes' | { status: 'error' | 'refused'; reason: RegExp };
  /** The folder given to both paths, when not the submission folder itself (an upload holding it). */
  upload?: string;
}

const SHAPES: Shape[] = [
  { name: 'unused_import_of_a_deleted_file', files: { 'index.ts': `import { helper } from './helpers';\n${BASE}` }, expect: { status: 'error', reason: /imports "\.\/helpers", which is not in your folder: add the file or fix the path/ } },
  { name: 'type_only_import_of_a_missing_file', files: { 'index.ts': `import type { Weights } from './types';\nexport type W = Weights;\n${BASE}` }, expect: { status: 'error', reason: /imports "\.\/types", which is not in your folder/ } },
  { name: 'type_only_import', files: { 'index.ts': `import type { Weights } from './types';\nexport type W = Weights;\n${BASE}`, 'types.ts': 'export interface Weights { q: number }\n' }, expect: 'passes' },
  { name: 'js_extension_import_of_a_ts_file', files: { 'index.ts': takingSoftmaxFrom('./helpers.js'), 'helpers.ts': SOFTMAX }, expect: 'passes' },
  { name: 'index_file_of_a_folder', files: { 'index.ts': takingSoftmaxFrom('./ops'), 'ops/index.ts': SOFTMAX.replace("'../lib/tensor'", "'../../lib/tensor'").replace("'./base'", "'../base'") }, expect: 'passes' },
  {
    name: 'tensor_module_by_other_paths',
    files: { 'index.ts': takingSoftmaxFrom('./deep/er/ops'), 'deep/er/ops.ts': SOFTMAX.replace("'../lib/tensor'", "'../../../../lib/tensor.js'").replace("'./base'", "'../../base'") },
    expect: 'passes',
  },
  { name: 'a_file_under_another_case', files: { 'index.ts': takingSoftmaxFrom('./Helpers'), 'helpers.ts': SOFTMAX }, expect: { status: 'error', reason: /the folder has helpers\.ts, whose name differs in case/ } },
  // Vite alone would run helpers.js (its own order puts .js first): the grader runs helpers.ts.
  { name: 'a_ts_and_a_js_of_one_name', files: { 'index.ts': takingSoftmaxFrom('./helpers'), 'helpers.ts': SOFTMAX, 'helpers.js': WRONG_SOFTMAX_JS }, expect: 'passes' },
  { name: 'js_extension_with_both_files', files: { 'index.ts': takingSoftmaxFrom('./helpers.js'), 'helpers.ts': SOFTMAX, 'helpers.js': WRONG_SOFTMAX_JS }, expect: 'passes' },
  { name: 'js_extension_import_of_a_folder', files: { 'index.ts': takingSoftmaxFrom('./ops.js'), 'ops/index.ts': SOFTMAX.replace("'../lib/tensor'", "'../../lib/tensor'").replace("'./base'", "'../base'") }, expect: 'passes' },
  { name: 'a_javascript_helper', files: { 'index.ts': takingSoftmaxFrom('./helpers'), 'helpers.js': "export { softmax } from './base';\n" }, expect: 'passes' },
  { name: 'another_harness_module', files: { 'index.ts': `import { checkClose } from '../lib/compare';\nexport const c = checkClose;\n${BASE}` }, expect: { status: 'refused', reason: /imports "\.\.\/lib\/compare", which a submission may not use/ } },
  { name: 'a_node_module', files: { 'index.ts': `import fs from 'node:fs';\nexport const f = fs;\n${BASE}` }, expect: { status: 'refused', reason: /imports "node:fs", which a submission may not use/ } },
  { name: 'a_require_call', files: { 'index.ts': `${BASE}\nexport function later(): unknown {\n  return require('./base');\n}\n` }, expect: { status: 'error', reason: /calls require\(\): use import/ } },
  { name: 'a_computed_import', files: { 'index.ts': `${BASE}\nexport function later(name: string): unknown {\n  return import(name);\n}\n` }, expect: { status: 'error', reason: /imports a path computed when it runs/ } },
  { name: 'top_level_await', files: { 'index.ts': `${BASE}\nexport const ready = await Promise.resolve(true);\n` }, expect: { status: 'error', reason: /top-level await/ } },
  { name: 'import_meta', files: { 'index.ts': `${BASE}\nexport const here = import.meta.url;\n` }, expect: { status: 'error', reason: /uses import\.meta/ } },
  { name: 'a_syntax_error', files: { 'index.ts': BASE.replace('Q.shape[Q.ndim - 1]', 'Q.shape[Q.ndim - 1') }, expect: { status: 'error', reason: /syntax error at a_syntax_error\/index\.ts:\d+:\d+: / } },
  { name: 'a_json_import', files: { 'index.ts': `import scale from './scale.json';\nexport const s = scale;\n${BASE}`, 'scale.json': '8\n' }, expect: { status: 'error', reason: /imports "\.\/scale\.json", which is not in your folder/ } },
  { name: 'an_mjs_helper', files: { 'index.ts': takingSoftmaxFrom('./helpers'), 'helpers.mjs': "export { softmax } from './base';\n" }, expect: { status: 'error', reason: /imports "\.\/helpers", which is not in your folder/ } },
  { name: 'throws_while_loading', files: { 'index.ts': takingSoftmaxFrom('./helpers'), 'helpers.ts': `throw new Error('boom while loading');\n` }, expect: { status: 'error', reason: /^the submission failed to load: Error: boom while loading$/ } },
  { name: 'a_symbolic_link', files: { 'index.ts': BASE, 'copy.ts': { link: 'index.ts' } }, expect: { status: 'refused', reason: /copy\.ts is a symbolic link/ } },
  { name: 'no_index_ts', files: { 'main.ts': BASE }, expect: { status: 'error', reason: /holds no index\.ts/ } },
  // Past what oxc survives (it once took the grading process down with SIGSEGV): refused before any parser reads it, in one place.
  { name: 'nested_too_deep', files: { 'index.ts': `${BASE}\nexport const zz = ${'('.repeat(20_000)}1${')'.repeat(20_000)};\n` }, expect: { status: 'error', reason: /^the submission failed to load: nesting too deep at nested_too_deep\/index\.ts:\d+:\d+: / } },
  { name: 'a_helper_nested_too_deep', files: { 'index.ts': takingSoftmaxFrom('./helpers'), 'helpers.ts': `${SOFTMAX}export const zz = ${'!'.repeat(100_000)}1;\n` }, expect: { status: 'error', reason: /^the submission failed to load: nesting too deep at a_helper_nested_too_deep\/helpers\.ts:4:\d+: / } },
  { name: 'nested_at_the_bound', files: { 'index.ts': takingSoftmaxFrom('./helpers'), 'helpers.ts': `${SOFTMAX}${AT_THE_BOUND}` }, expect: 'passes' },
  { name: 'an_upload_holding_student', files: { 'student/index.ts': BASE.replace("'../../../lib/tensor'", "'../../lib/tensor'"), 'README.md': 'mine\n' }, expect: 'passes', upload: '.' },
];

function layOut(shape: Shape): string {
  const dir = path.join(work, shape.name);
  const files: Shape['files'] = { ...(shape.upload ? {} : { 'base.ts': BASE }), ...shape.files };
  for (const [file, content] of Object.entries(files)) {
    const target = path.join(dir, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (typeof content === 'string') fs.writeFileSync(target, content);
    else fs.symlinkSync(content.link, target);
  }
  if (shape.upload) fs.writeFileSync(path.join(dir, 'student', 'base.ts'), BASE.replace("'../../../lib/tensor'", "'../../lib/tensor'"));
  return dir;
}

const folders = Object.fromEntries(SHAPES.map((shape) => [shape.name, layOut(shape)]));
const vitestRun = sharedVitestRun(folders, 'load-shapes');

describe('every shape of folder gets one verdict from npm test and the grader, in the same words', () => {
  it.concurrent.each(SHAPES)('$name', async (shape) => {
    const [graded, tested] = await Promise.all([grade(folders[shape.name], shape.name), vitestRun(shape.name)]);
    expectSameEndings(graded.cases, tested);
    if (shape.expect === 'passes') {
      expect(graded.cases.filter((c) => c.status !== 'passed').map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
      return;
    }
    const { status, reason } = shape.expect;
    const first = sayer(graded.cases);
    expect(first.status).toBe(status);
    expect(first.reason).toMatch(reason);
    // The grader's reason is npm test's whole message: every test fails on it (the first) or names it (the others), nothing else.
    for (const c of visibleCases()) expect(tested[c.name].message).toBe(`LoadFailure: ${graded.cases.find((g) => g.name === c.name)!.reason}`);
  }, SHARED_RUN_LIMIT_MS);
});
