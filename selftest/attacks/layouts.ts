/**
 * Not an attack file: attacks made of the submission folder itself rather than its code (links,
 * special files, sizes, sources that do not parse, sources nested too deep to parse: nesting.ts).
 * Each builds its folder; the grader must refuse it, or fail it to load, before any of it runs, and
 * must never follow it out of the folder (a folder nested just within the bound must load and pass).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { INTAKE_LIMITS } from '../../lib/intake/folder';
import { PROJECT_ROOT } from '../../lib/paths';
import { NESTING_LAYOUTS } from './nesting';
import { chain, writeTree, type TreeNode } from './trees';

export interface LayoutContext {
  /** A folder outside every submission, holding secret.ts: a copy of the reference plus a secret line. */
  outside: string;
}

export interface Layout {
  build(dir: string, context: LayoutContext): void;
  /** How the grader must answer: every test refused or errored with a reason matching this, or every test passed. */
  status: 'refused' | 'error' | 'passes';
  reason: RegExp;
  /** Needs root (mknod). */
  root?: true;
}

const REFERENCE = path.join(PROJECT_ROOT, 'reference');
const reference = () => fs.readFileSync(path.join(REFERENCE, 'index.ts'), 'utf8');
/** Relative imports of the harness resolve from anywhere: the grader maps any path ending in lib/tensor. */
const write = (dir: string, name: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  fs.writeFileSync(path.join(dir, name), text);
};

/**
 * Each of the intake's caps crossed by one, with the reference as index.ts, at the places a cap
 * checked per listing let through: in a folder listed after its parent's listing went on past the
 * cap (5,503 entries once graded 12/12 against a cap of 500), at the last entry, at a folder right
 * after the cap, in the folder nested one too deep, in a code file one byte over, in the code file
 * that takes the total one byte over from a folder listed last.
 */
function capCrossings(): Record<string, Layout> {
  const { entries, depth, fileBytes, totalBytes } = INTAKE_LIMITS;
  const files = (prefix: string, count: number, size = 0, ext = '.txt'): TreeNode[] =>
    Array.from({ length: count }, (_, i) => ({ kind: 'file', name: `${prefix}${i}${ext}`, size }));
  const folder = (name: string, children: TreeNode[]): TreeNode => ({ kind: 'folder', name, children });
  const crossing = (tree: TreeNode[], reason: RegExp): Layout => ({
    build: (dir) => {
      write(dir, 'index.ts', reference());
      writeTree(dir, tree);
    },
    status: 'refused', reason,
  });
  const pastEntries = new RegExp(`takes the submission past ${entries} files and folders: submit only your code`);
  const codeBytes = (budget: number) => budget - Buffer.byteLength(reference());
  return {
    // Entered early, listed whole later: the parent's listing went on past the cap before `z` was listed.
    entries_past_the_cap_between_listings: crossing([folder('a', files('f', entries - 50)), ...files('r', 100), folder('z', files('g', 2 * entries))], pastEntries),
    entries_one_past_at_the_last_entry: crossing([folder('a', files('f', entries - 3)), folder('z', files('g', 1))], pastEntries),
    entries_a_folder_right_after_the_cap: crossing([...files('f', entries - 1), folder('zz', [])], pastEntries),
    depth_one_folder_too_deep: crossing(chain(depth + 1), new RegExp(`is more than ${depth} folders deep: flatten your folders`)),
    file_bytes_one_over: crossing([{ kind: 'file', name: 'data.ts', size: fileBytes + 1 }],
      new RegExp(`data\\.ts is ${(fileBytes + 1).toLocaleString('en-US')} bytes; a code file may be at most 1 MiB`)),
    total_bytes_one_over_in_a_later_folder: crossing(
      [folder('a', files('p', 2, fileBytes, '.ts')), ...files('q', 1, fileBytes, '.ts'), folder('z', files('r', 1, codeBytes(totalBytes) - 3 * fileBytes + 1, '.ts'))],
      /z\/r0\.ts takes the submission past 4 MiB of code files: remove generated or pasted data/),
  };
}

/** The intake's caps crossed (capCrossings): layouts, and uploads to Gradescope in gradescope.test.ts. */
export const CAP_CROSSINGS = capCrossings();

export const LAYOUTS: Record<string, Layout> = {
  link_index_to_reference: {
    build: (dir) => fs.symlinkSync(path.join(REFERENCE, 'index.ts'), path.join(dir, 'index.ts')),
    status: 'refused', reason: /index\.ts is a symbolic link/,
  },
  link_folder_to_reference: {
    build: (dir) => {
      fs.symlinkSync(REFERENCE, path.join(dir, 'r'));
      write(dir, 'index.ts', "export * from './r/index';\n");
    },
    status: 'refused', reason: /\/r is a symbolic link/,
  },
  link_to_classmate: {
    // In a batch `good` is the classmate beside it; graded alone, the link leads nowhere: refused all the same.
    build: (dir) => fs.symlinkSync('../good/index.ts', path.join(dir, 'index.ts')),
    status: 'refused', reason: /index\.ts is a symbolic link/,
  },
  helper_linked_to_proc: {
    build: (dir) => {
      write(dir, 'index.ts', "export * from './helper';\n");
      fs.symlinkSync('/proc/self/environ', path.join(dir, 'helper.ts'));
    },
    status: 'refused', reason: /helper\.ts is a symbolic link/,
  },
  entry_linked_to_dev_zero: {
    build: (dir) => fs.symlinkSync('/dev/zero', path.join(dir, 'index.ts')),
    status: 'refused', reason: /index\.ts is a symbolic link/,
  },
  entry_is_a_fifo: {
    build: (dir) => execFileSync('mkfifo', [path.join(dir, 'index.ts')]),
    status: 'refused', reason: /index\.ts is a FIFO/,
  },
  device_beside_code: {
    build: (dir) => {
      write(dir, 'index.ts', reference());
      execFileSync('mknod', [path.join(dir, 'zero.ts'), 'c', '1', '5']);
    },
    status: 'refused', reason: /zero\.ts is a device/, root: true,
  },
  hard_link_outside: {
    build: (dir, { outside }) => fs.linkSync(path.join(outside, 'secret.ts'), path.join(dir, 'index.ts')),
    status: 'refused', reason: /index\.ts is a hard link/,
  },
  ...CAP_CROSSINGS,
  syntax_error: {
    // TypeScript's error recovery would run this (and it scored full marks); vitest cannot load it.
    build: (dir) => write(dir, 'index.ts', reference().replace('Q.shape[Q.ndim - 1]', 'Q.shape[Q.ndim - 1')),
    status: 'error', reason: /failed to load: syntax error at \S*index\.ts:\d+:\d+: /,
  },
  missing_import: {
    build: (dir) => write(dir, 'index.ts', `import { helper } from './helpers';\nvoid helper;\n${reference()}`),
    status: 'error', reason: /failed to load: .*\.\/helpers/,
  },
  ...NESTING_LAYOUTS,
};

/** The folder outside every submission that hard_link_outside reaches into. */
export function makeOutside(parent: string): LayoutContext {
  const outside = path.join(parent, 'outside');
  fs.mkdirSync(outside, { recursive: true });
  fs.writeFileSync(path.join(outside, 'secret.ts'), `${reference()}\nexport const SECRET = 'outside-the-submission';\n`);
  return { outside };
}
