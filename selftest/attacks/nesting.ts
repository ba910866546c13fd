/**
 * Not an attack file: folders whose code nests past what a recursive parser survives, drawn from
 * every kind of nesting (lib/bench/nesting.ts). A 40 KB index.ts of `((((…1…))))` once overflowed
 * oxc's native stack inside the grading process: SIGSEGV, no grades.csv, the same on every rerun.
 * Each kind goes past the bound by one step in index.ts, and far past it (64 KiB of it, deeper
 * than oxc survives for most kinds) in a helper index.ts imports: every test fails to load, naming
 * the file and the place. Beside them, a few folders hold every kind exactly at the bound, each in
 * a function of its own that nothing calls: they must be graded like the reference, full marks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { NESTING_CONSTRUCTS, stepsWithin, type Construct } from '../../lib/bench/nesting';
import { NESTING_LIMIT } from '../../lib/text/nesting';
import { PROJECT_ROOT } from '../../lib/paths';
import type { Layout } from './layouts';

const AT_THE_BOUND_PER_FOLDER = 9;
const reference = () => fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8');
const write = (dir: string, name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);

/** A statement of a construct inside a function nothing calls: at the bound it parses, and never runs. */
const uncalled = (name: string) => (statement: string) => `export function deep_${name}(a: any, x: any): void {\n  ${statement}\n}\n`;
const farPast = (construct: Construct) => {
  const stepLength = construct.source(2).length - construct.source(1).length;
  return construct.source(Math.floor((64 * 1024) / stepLength));
};

function nestingLayouts(): Record<string, Layout> {
  const layouts: Record<string, Layout> = {};
  for (const [name, construct] of Object.entries(NESTING_CONSTRUCTS)) {
    layouts[`nested_${name}_past_the_bound`] = {
      build: (dir) => write(dir, 'index.ts', `${construct.source(stepsWithin(construct, NESTING_LIMIT) + 1)}\n${reference()}`),
      status: 'error', reason: /^the submission failed to load: nesting too deep at \S+\/index\.ts:\d+:\d+: more than \d+ brackets and operators/,
    };
    layouts[`nested_${name}_in_a_helper`] = {
      build: (dir) => {
        write(dir, 'deep.ts', `${farPast(construct)}\n`);
        write(dir, 'index.ts', `import './deep';\n${reference()}`);
      },
      status: 'error', reason: /^the submission failed to load: nesting too deep at \S+\/deep\.ts:\d+:\d+: /,
    };
  }
  // A few kinds per folder: TypeScript takes a tenth of a second or so over each at the bound,
  // and a folder's transpiling has the grader's time limit.
  const names = Object.keys(NESTING_CONSTRUCTS);
  for (let group = 0; group * AT_THE_BOUND_PER_FOLDER < names.length; group++) {
    const mine = names.slice(group * AT_THE_BOUND_PER_FOLDER, (group + 1) * AT_THE_BOUND_PER_FOLDER);
    layouts[`nested_at_the_bound_${group + 1}`] = {
      build: (dir) => {
        const functions = mine.map((name) => uncalled(name)(NESTING_CONSTRUCTS[name].source(stepsWithin(NESTING_CONSTRUCTS[name], NESTING_LIMIT, uncalled(name)))));
        // Half in index.ts, half in a helper it imports: both files are parsed at the bound.
        write(dir, 'deep.ts', functions.filter((_, i) => i % 2 === 0).join('\n'));
        write(dir, 'index.ts', `export * from './deep';\n${functions.filter((_, i) => i % 2 === 1).join('\n')}\n${reference()}`);
      },
      status: 'passes', reason: /^$/,
    };
  }
  return layouts;
}

export const NESTING_LAYOUTS = nestingLayouts();
