import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { byName, chain, crossings, entriesOf, OPEN, treeArbitrary, writeTree, type TreeNode } from '../../selftest/attacks/trees';
import { CODE_FILE, INTAKE_LIMITS, IntakeError, readSubmissionFolder } from './folder';
import { locateSubmission, SEARCH_LIMITS } from './upload';
import type { Cap, WalkCaps } from './walkBudget';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'walks-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
let trees = 0;
const onDisk = (tree: readonly TreeNode[]) => {
  const dir = path.join(work, `t${trees++}`);
  writeTree(dir, tree);
  return dir;
};

interface Crossed {
  cap: Cap;
  /** The entry (depth, a size) or the folder being listed (entries) where the cap was crossed; '' is the root. */
  where: string;
}

const join = (folder: string, name: string) => (folder ? `${folder}/${name}` : name);
const isCode = (node: TreeNode) => node.kind === 'file' && CODE_FILE.test(node.name);

/**
 * The intake as it must walk, written apart from it: depth first in name order, a folder's whole
 * listing counted when it is listed (before any of it is entered), code files' sizes charged in
 * the order they are met.
 */
function intakeModel(tree: readonly TreeNode[], caps: WalkCaps): Crossed | undefined {
  let entries = 0;
  let bytes = 0;
  const visit = (children: readonly TreeNode[], folder: string, depth: number): Crossed | undefined => {
    for (let i = 0; i < children.length; i++) if (++entries > caps.entries) return { cap: 'entries', where: folder };
    for (const node of [...children].sort(byName)) {
      const at = join(folder, node.name);
      if (node.kind === 'folder') {
        if (depth + 1 > caps.depth) return { cap: 'depth', where: at };
        const inner = visit(node.children, at, depth + 1);
        if (inner) return inner;
      } else if (isCode(node)) {
        if (node.size > caps.fileBytes) return { cap: 'fileBytes', where: at };
        if ((bytes += node.size) > caps.totalBytes) return { cap: 'totalBytes', where: at };
      }
    }
    return undefined;
  };
  return visit(tree, '', 0);
}

/** Code sizes in the order the intake charges them. */
function codeSizes(tree: readonly TreeNode[]): number[] {
  return [...tree].sort(byName).flatMap((node) => (node.kind === 'folder' ? codeSizes(node.children) : isCode(node) ? [node.size] : []));
}

const PHRASE: Record<Cap, RegExp> = {
  entries: /^ takes the submission past \d+ files and folders: submit only your code$/,
  depth: /^ is more than \d+ folders deep: flatten your folders$/,
  fileBytes: /^ is [\d,]+ bytes; a code file may be at most [\d.]+ (bytes|KiB|MiB): remove generated or pasted data$/,
  totalBytes: /^ takes the submission past [\d.]+ (bytes|KiB|MiB) of code files: remove generated or pasted data$/,
};

/** How the intake answered: the files it read, or the cap it names and where. */
function intake(dir: string, caps: WalkCaps): { files: string[] } | { refused: string } {
  try {
    return { files: [...readSubmissionFolder(dir, 'sub', caps).keys()].sort() };
  } catch (err) {
    if (!(err instanceof IntakeError)) throw err;
    return { refused: err.message };
  }
}

/** The refusal's line for a crossing, as the model says it must start and read. */
function matches(message: string, crossed: Crossed): boolean {
  const where = crossed.where ? `sub/${crossed.where}` : 'sub';
  return message.startsWith(where) && PHRASE[crossed.cap].test(message.slice(where.length));
}

describe('the intake walks a folder within one budget, charged entry by entry', () => {
  it('the real caps: a tree exactly on each is taken, one more is refused', () => {
    expect(INTAKE_LIMITS).toEqual({ entries: 500, depth: 8, fileBytes: 1024 ** 2, totalBytes: 4 * 1024 ** 2 });
    expect(SEARCH_LIMITS.entries).toBe(5000);
    const files = (prefix: string, count: number, size = 0, ext = '.txt'): TreeNode[] =>
      Array.from({ length: count }, (_, i) => ({ kind: 'file', name: `${prefix}${i}${ext}`, size }));
    const { fileBytes, totalBytes } = INTAKE_LIMITS;
    expect(totalBytes / 4).toBeLessThanOrEqual(fileBytes);
    const shapes: [string, (extra: number) => TreeNode[], string][] = [
      ['entries', (extra) => [{ kind: 'folder', name: 'a', children: files('f', 448) }, ...files('r', 50), { kind: 'folder', name: 'z', children: files('g', extra) }],
        'sub/z takes the submission past 500 files and folders: submit only your code'],
      ['depth', (extra) => chain(8 + extra), 'sub/d1/d2/d3/d4/d5/d6/d7/d8/d9 is more than 8 folders deep: flatten your folders'],
      ['fileBytes', (extra) => files('c', 1, fileBytes + extra, '.ts'), 'sub/c0.ts is 1,048,577 bytes; a code file may be at most 1 MiB: remove generated or pasted data'],
      ['totalBytes', (extra) => [...files('c', 4, totalBytes / 4, '.ts'), { kind: 'folder', name: 'z', children: files('d', 1, extra, '.ts') }],
        'sub/z/d0.ts takes the submission past 4 MiB of code files: remove generated or pasted data'],
    ];
    for (const [cap, shape, refusal] of shapes) {
      expect(intake(onDisk(shape(0)), INTAKE_LIMITS), cap).toMatchObject({ files: expect.any(Array) });
      expect(intake(onDisk(shape(1)), INTAKE_LIMITS), cap).toEqual({ refused: refusal });
    }
  });

  it('generated trees, each cap at every position: refused exactly where the model crosses it, naming it', () => {
    fc.assert(fc.property(treeArbitrary(), (tree) => {
      const dir = onDisk(tree);
      const code = entriesOf(tree).filter((e) => isCode(e.node)).map((e) => e.path).sort();
      for (const { caps } of [{ caps: OPEN }, ...crossings(tree, codeSizes(tree))]) {
        const crossed = intakeModel(tree, caps);
        const got = intake(dir, caps);
        if (!crossed) expect(got, JSON.stringify(caps)).toEqual({ files: code });
        else expect('refused' in got && matches(got.refused, crossed), `${JSON.stringify(caps)}: ${JSON.stringify(got)} should cross ${JSON.stringify(crossed)}`).toBe(true);
      }
    }), { numRuns: 60 });
  });

  it('a count that passes the cap between two listings stops at the entry past it, however far the tree goes on', () => {
    // The shape that once went through: a folder entered early, the rest of its parent's listing after it.
    const tree: TreeNode[] = [
      { kind: 'folder', name: 'a', children: Array.from({ length: 6 }, (_, i) => ({ kind: 'file' as const, name: `f${i}.txt`, size: 0 })) },
      ...Array.from({ length: 6 }, (_, i) => ({ kind: 'file' as const, name: `g${i}.txt`, size: 0 })),
      { kind: 'folder', name: 'z', children: Array.from({ length: 50 }, (_, i) => ({ kind: 'file' as const, name: `h${i}.txt`, size: 0 })) },
    ];
    const dir = onDisk(tree);
    const count = entriesOf(tree).length;
    for (let cap = 0; cap <= count + 1; cap++) {
      const got = intake(dir, { ...OPEN, entries: cap });
      const crossed = intakeModel(tree, { ...OPEN, entries: cap });
      expect(crossed === undefined, `cap ${cap}`).toBe(cap >= count);
      if (crossed) expect('refused' in got && matches(got.refused, crossed), `cap ${cap}: ${JSON.stringify(got)}`).toBe(true);
      else expect(got).toEqual({ files: [] });
    }
  });

  it('deep chains: every depth from 0 to past the chain', () => {
    for (let depth = 0; depth <= 12; depth++) {
      const tree = chain(depth);
      const dir = onDisk(tree);
      for (let cap = 0; cap <= depth + 1; cap++) {
        const got = intake(dir, { ...OPEN, depth: cap });
        if (cap >= depth) expect(got, `chain ${depth}, cap ${cap}`).toMatchObject({ files: expect.any(Array) });
        else expect(got, `chain ${depth}, cap ${cap}`).toEqual({ refused: `sub/${Array.from({ length: cap + 1 }, (_, i) => `d${i + 1}`).join('/')} is more than ${cap} folders deep: flatten your folders` });
      }
    }
  });
});

/** Whether the search skips a folder (the harness's, hidden ones, macOS's). */
const skipped = (name: string) => name.startsWith('.') || ['__MACOSX', 'adapters', 'lib', 'tests', 'reference', 'scripts', 'fixtures', 'selftest', 'node_modules'].includes(name);
const ENTRY = /^index\.(ts|js)$/;

/**
 * The upload's search as it must walk: breadth first, a folder's listing counted when it is listed,
 * no folder entered 4 deep or more, nor skipped, nor below the first depth that holds an entry file.
 */
function searchModel(tree: readonly TreeNode[], entries: number): { found: string[] } | Crossed {
  let counted = 0;
  let foundAt = Infinity;
  const found: string[] = [];
  const queue: { children: readonly TreeNode[]; folder: string; depth: number }[] = [{ children: tree, folder: '', depth: 0 }];
  for (let at = 0; at < queue.length; at++) {
    const { children, folder, depth } = queue[at];
    if (depth > 0 && (depth > 4 || depth - 1 >= foundAt)) continue;
    counted += children.length;
    if (counted > entries) return { cap: 'entries', where: folder };
    for (const node of [...children].sort(byName)) {
      if (node.kind === 'file' && ENTRY.test(node.name)) {
        found.push(folder);
        foundAt = depth;
      } else if (node.kind === 'folder' && !skipped(node.name)) queue.push({ children: node.children, folder: join(folder, node.name), depth: depth + 1 });
    }
  }
  return { found: [...new Set(found)].sort() };
}

function search(dir: string, caps: WalkCaps): { found: string[] } | { refused: string } {
  try {
    return { found: [locateSubmission(dir, 'up', caps).relative] };
  } catch (err) {
    if (!(err instanceof IntakeError)) throw err;
    return { refused: err.message };
  }
}

describe('the upload\'s search for index.ts walks within one budget', () => {
  it('generated uploads, the entry cap at every position: refused where the model crosses it, else the one entry found', () => {
    fc.assert(fc.property(treeArbitrary({ maxDepth: 6 }), (tree) => {
      const dir = onDisk(tree);
      for (const { caps } of crossings(tree, []).filter((c) => c.cap === 'entries')) {
        const model = searchModel(tree, caps.entries);
        const got = search(dir, { ...SEARCH_LIMITS, ...caps });
        if ('cap' in model) {
          const where = model.where ? `up/${model.where}` : 'up';
          expect(got, `cap ${caps.entries}`).toEqual({ refused: `${where} takes the search for index.ts past ${caps.entries} files and folders: upload only your student folder` });
        } else if (model.found.length === 1) expect(got, `cap ${caps.entries}`).toEqual({ found: model.found });
        else expect('refused' in got && /holds (no index\.ts|\d+ submissions)/.test(got.refused), `cap ${caps.entries}: ${JSON.stringify(got)}`).toBe(true);
      }
    }), { numRuns: 60 });
  });
});
