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
  huge_source: {
    build: (dir) => write(dir, 'index.ts', `${reference()}\n// ${'x'.repeat(INTAKE_LIMITS.fileBytes)}\n`),
    status: 'refused', reason: /index\.ts is 1 MiB; a code file may be at most 1 MiB/,
  },
  too_many_files: {
    build: (dir) => {
      write(dir, 'index.ts', reference());
      for (let i = 0; i < INTAKE_LIMITS.entries; i++) write(dir, `pad/f${i}.txt`, '');
    },
    status: 'refused', reason: /holds more than \d+ files and folders/,
  },
  deep_folders: {
    build: (dir) => {
      write(dir, 'index.ts', reference());
      write(dir, `${Array.from({ length: INTAKE_LIMITS.depth + 2 }, (_, i) => `d${i}`).join('/')}/x.ts`, '');
    },
    status: 'refused', reason: /folders deep/,
  },
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
