/**
 * Trees of files and folders as a submission, an upload or a repository may shape them, drawn by
 * fast-check, and the caps that cross them at every position: for each cap of a walk
 * (lib/intake/walkBudget.ts), every value from 0 to one past what the tree holds, so that the cap
 * falls inside a listing, between two, exactly on the tree's last entry, right before a folder,
 * and on a file's size ±1. The unit tests of each walk (the intake, the upload's search, the fetch,
 * the merge) check their walk against a model of it written here, apart from the code it checks.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { Cap, WalkCaps } from '../../lib/intake/walkBudget';

export interface FileNode {
  kind: 'file';
  name: string;
  size: number;
}
export interface FolderNode {
  kind: 'folder';
  name: string;
  children: TreeNode[];
}
export type TreeNode = FileNode | FolderNode;

/** No cap: a walk's caps with every one open. */
export const OPEN: WalkCaps = { entries: Infinity, depth: Infinity, fileBytes: Infinity, totalBytes: Infinity };

const stem = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'lib', 'index', 'student', 'node_modules', '.hidden', 'z9');
const fileName = fc.tuple(stem, fc.constantFrom('.ts', '.js', '.txt', '')).map(([s, ext]) => `${s}${ext}`);

/** A tree of at most `maxDepth` nested folders, each holding up to `maxChildren` entries, files of up to `maxSize` bytes. */
export function treeArbitrary({ maxDepth = 4, maxChildren = 5, maxSize = 40 } = {}): fc.Arbitrary<TreeNode[]> {
  const { tree } = fc.letrec<{ tree: TreeNode[]; node: TreeNode }>((tie) => ({
    tree: fc.uniqueArray(tie('node'), { selector: (n) => n.name, maxLength: maxChildren }),
    node: fc.oneof(
      { depthIdentifier: 'tree', maxDepth },
      fc.record({ kind: fc.constant('file' as const), name: fileName, size: fc.nat({ max: maxSize }) }),
      fc.record({ kind: fc.constant('folder' as const), name: stem, children: tie('tree') }),
    ),
  }));
  return tree;
}

/** Folders nested `depth` deep, each holding one file beside the next folder: the deep chain. */
export function chain(depth: number, size = 1): TreeNode[] {
  let inner: TreeNode[] = [{ kind: 'file', name: 'leaf.ts', size }];
  for (let i = depth; i > 0; i--) inner = [{ kind: 'folder', name: `d${i}`, children: inner }, { kind: 'file', name: `f${i}.ts`, size }];
  return inner;
}

export const byName = (a: TreeNode, b: TreeNode) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Every entry of the tree, each with its path, depth (folders above it) and node, in no particular order. */
export function entriesOf(tree: readonly TreeNode[], prefix = '', depth = 0): { path: string; depth: number; node: TreeNode }[] {
  return tree.flatMap((node) => {
    const at = prefix ? `${prefix}/${node.name}` : node.name;
    return [{ path: at, depth, node }, ...(node.kind === 'folder' ? entriesOf(node.children, at, depth + 1) : [])];
  });
}

/**
 * Caps that cross the tree at every position, one cap at a time (the others open): every entry
 * count and depth from 0 to one past the tree's, each file's size and each running total ±1.
 * `sizes` are the sizes a walk charges, in the order it charges them.
 */
export function crossings(tree: readonly TreeNode[], sizes: readonly number[]): { cap: Cap; caps: WalkCaps }[] {
  const all = entriesOf(tree);
  const deepest = Math.max(0, ...all.filter((e) => e.node.kind === 'folder').map((e) => e.depth + 1));
  const values: Record<Cap, Set<number>> = {
    entries: new Set(Array.from({ length: all.length + 2 }, (_, i) => i)),
    depth: new Set(Array.from({ length: deepest + 2 }, (_, i) => i)),
    fileBytes: new Set(sizes.flatMap((s) => [s - 1, s, s + 1]).filter((s) => s >= 0)),
    totalBytes: new Set([0]),
  };
  let total = 0;
  for (const size of sizes) {
    total += size;
    for (const v of [total - 1, total, total + 1]) if (v >= 0) values.totalBytes.add(v);
  }
  return (Object.keys(values) as Cap[]).flatMap((cap) => [...values[cap]].map((value) => ({ cap, caps: { ...OPEN, [cap]: value } })));
}

/** The tree on disk under `dir` (which must not exist), each file `size` bytes of 'x'. */
export function writeTree(dir: string, tree: readonly TreeNode[]): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const node of tree) {
    const at = path.join(dir, node.name);
    if (node.kind === 'folder') writeTree(at, node.children);
    else fs.writeFileSync(at, 'x'.repeat(node.size));
  }
}

/** Git orders a folder's entries by name, a folder's name as if it ended in '/'. */
export const gitOrder = (a: TreeNode, b: TreeNode) => {
  const key = (n: TreeNode) => Buffer.from(n.kind === 'folder' ? `${n.name}/` : n.name);
  return Buffer.compare(key(a), key(b));
};

/**
 * A bare repository at `bare` whose one commit on main holds `files` (mode 100644 unless given),
 * written by `git fast-import`: no working tree, so many files or a large one cost what its pack costs.
 */
export function gitRepository(bare: string, files: Iterable<{ path: string; bytes: Buffer; mode?: string }>): void {
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', bare]);
  const parts: Buffer[] = [Buffer.from('commit refs/heads/main\ncommitter Student <s@example.org> 1764000000 +0000\ndata 10\nsubmitted\n')];
  for (const file of files) {
    parts.push(Buffer.from(`M ${file.mode ?? '100644'} inline ${file.path}\ndata ${file.bytes.length}\n`), file.bytes, Buffer.from('\n'));
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: bare, input: Buffer.concat(parts), maxBuffer: 1 << 30 });
}

/** The files of a tree, for gitRepository: its empty folders are lost, as git keeps none. */
export function treeFiles(tree: readonly TreeNode[]): { path: string; bytes: Buffer }[] {
  return entriesOf(tree).flatMap(({ path: at, node }) => (node.kind === 'file' ? [{ path: at, bytes: Buffer.alloc(node.size, 'x') }] : []));
}
