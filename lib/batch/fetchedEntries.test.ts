import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { chain, crossings, gitOrder, gitRepository, OPEN, treeArbitrary, treeFiles, type TreeNode } from '../../selftest/attacks/trees';
import type { Cap, WalkCaps } from '../intake/walkBudget';
import { Refused, TreeReader } from './fetchedEntries';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fetched-entries-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
let made = 0;

/** `git ls-tree -r -t -l -z` of a repository holding `files`, as the fetch reads it. */
function listing(files: { path: string; bytes: Buffer; mode?: string }[]): Buffer {
  const bare = path.join(work, `r${made++}.git`);
  gitRepository(bare, files);
  return execFileSync('git', ['ls-tree', '-r', '-t', '-l', '-z', '--full-tree', 'HEAD'], { cwd: bare, maxBuffer: 1 << 28 });
}

/** Git keeps no empty folder. */
function prune(tree: readonly TreeNode[]): TreeNode[] {
  return tree.flatMap((node): TreeNode[] => {
    if (node.kind === 'file') return [node];
    const children = prune(node.children);
    return children.length > 0 ? [{ ...node, children }] : [];
  });
}

/** The fetch's walk as it must be, written apart from it: each record of git's listing charged as git prints it, in git's order. */
function model(tree: readonly TreeNode[], caps: WalkCaps): { cap: Cap; where: string } | undefined {
  let entries = 0;
  let bytes = 0;
  const visit = (children: readonly TreeNode[], prefix: string, level: number): { cap: Cap; where: string } | undefined => {
    for (const node of [...children].sort(gitOrder)) {
      const at = prefix ? `${prefix}/${node.name}` : node.name;
      if (++entries > caps.entries) return { cap: 'entries', where: at };
      if (node.kind === 'folder') {
        if (level + 1 > caps.depth) return { cap: 'depth', where: at };
        const inner = visit(node.children, at, level + 1);
        if (inner) return inner;
      } else {
        if (node.size > caps.fileBytes) return { cap: 'fileBytes', where: at };
        if ((bytes += node.size) > caps.totalBytes) return { cap: 'totalBytes', where: at };
      }
    }
    return undefined;
  };
  return visit(tree, '', 0);
}

function sizesInGitOrder(tree: readonly TreeNode[]): number[] {
  return [...tree].sort(gitOrder).flatMap((node) => (node.kind === 'folder' ? sizesInGitOrder(node.children) : [node.size]));
}

const PHRASE: Record<Cap, RegExp> = {
  entries: /^ takes the repository past \d+ files and folders: commit only the assignment \(no node_modules, data or builds\)$/,
  depth: /^ is more than \d+ folders deep: flatten its folders$/,
  fileBytes: /^ is [\d,]+ bytes; a file may be at most [\d.]+ (bytes|KiB|MiB): remove it from the repository \(a submission is code\)$/,
  totalBytes: /^ takes the repository past [\d.]+ (bytes|KiB|MiB) of files: remove large files from the repository \(a submission is code\)$/,
};

/** What the reader makes of `output` fed in `cuts` pieces: the paths it keeps, or its refusal. */
function read(output: Buffer, caps: WalkCaps, cuts: number[] = []): { paths: string[] } | { refused: string } {
  const reader = new TreeReader(caps);
  try {
    let from = 0;
    for (const cut of [...cuts.map((c) => c % (output.length + 1)).sort((a, b) => a - b), output.length]) {
      reader.push(output.subarray(from, Math.max(from, cut)));
      from = Math.max(from, cut);
    }
    return { paths: reader.end().map((e) => e.path.toString('utf8')) };
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    return { refused: err.message };
  }
}

describe("the fetch reads a commit's tree within one budget, record by record, before it writes anything", () => {
  it('generated trees, each cap at every position, the listing cut anywhere: refused exactly where the model crosses it', () => {
    fc.assert(fc.property(treeArbitrary({ maxDepth: 5 }), fc.array(fc.nat(), { maxLength: 6 }), (drawn, cuts) => {
      const tree = prune(drawn);
      const output = listing(treeFiles(tree));
      const everything = (t: readonly TreeNode[], prefix = ''): string[] => [...t].sort(gitOrder).flatMap((n) => {
        const at = prefix ? `${prefix}/${n.name}` : n.name;
        return n.kind === 'folder' ? [at, ...everything(n.children, at)] : [at];
      });
      for (const { caps } of [{ caps: OPEN }, ...crossings(tree, sizesInGitOrder(tree))]) {
        const crossed = model(tree, caps);
        const got = read(output, caps, cuts);
        if (!crossed) expect(got, JSON.stringify(caps)).toEqual({ paths: everything(tree) });
        else {
          const where = JSON.stringify(crossed.where);
          expect('refused' in got && got.refused.startsWith(where) && PHRASE[crossed.cap].test(got.refused.slice(where.length)),
            `${JSON.stringify(caps)}: ${JSON.stringify(got)} should cross ${JSON.stringify(crossed)}`).toBe(true);
        }
      }
    }), { numRuns: 25 });
  });

  it('deep chains, every depth from 0 to past the chain', () => {
    for (const depth of [0, 1, 5, 17]) {
      const output = listing(treeFiles(chain(depth)));
      for (let cap = 0; cap <= depth + 1; cap++) {
        const got = read(output, { ...OPEN, depth: cap });
        if (cap >= depth) expect(got).toHaveProperty('paths');
        else expect(got).toEqual({ refused: `${JSON.stringify(Array.from({ length: cap + 1 }, (_, i) => `d${i + 1}`).join('/'))} is more than ${cap} folders deep: flatten its folders` });
      }
    }
  });

  it('a link, names no checkout may write, a name too long: refused naming the entry', () => {
    const blob = Buffer.from('export {};\n');
    const cases: [{ path: string; bytes: Buffer; mode?: string }, RegExp][] = [
      [{ path: 'student/index.ts', bytes: Buffer.from('../../reference/index.ts'), mode: '120000' }, /^"student\/index\.ts" is a symbolic link: a submission is regular files only/],
      [{ path: `student/${'n'.repeat(300)}.ts`, bytes: blob }, /has a name too long for a file system \(303 bytes; at most 255\): rename it$/],
    ];
    for (const [file, refusal] of cases) expect(read(listing([file]), OPEN)).toEqual({ refused: expect.stringMatching(refusal) });
    // A tree git itself never makes: an entry named "..", another ".git".
    for (const name of ['..', '.git', '.GIT']) {
      const bare = path.join(work, `odd${made++}.git`);
      execFileSync('git', ['init', '--quiet', '--bare', bare]);
      const oid = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: bare, input: blob }).toString().trim();
      const inner = execFileSync('git', ['mktree'], { cwd: bare, input: `100644 blob ${oid}\tx.ts\n` }).toString().trim();
      const top = execFileSync('git', ['mktree'], { cwd: bare, input: `040000 tree ${inner}\t${name}\n` }).toString().trim();
      const output = execFileSync('git', ['ls-tree', '-r', '-t', '-l', '-z', '--full-tree', top], { cwd: bare });
      expect(read(output, OPEN)).toEqual({ refused: `${JSON.stringify(name)} is a path no checkout may write (${JSON.stringify(name)} in it): the repository's tree is not one git makes` });
    }
  });
});
