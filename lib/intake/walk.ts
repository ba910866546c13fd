/**
 * The one walk of a folder someone else shaped, charged to a budget as it goes (walkBudget.ts):
 * iterative (an explicit stack or queue: no nesting can overflow the grader's call stack), every
 * entry lstat'ed and never followed, each folder's listing read one name at a time and sorted, and
 * names kept as their bytes (names.ts), so that a name that is not UTF-8 is met as itself.
 */
import fs from 'node:fs';
import { listNames, nameBytes, type NamedEntry } from './names';
import type { WalkBudget } from './walkBudget';

export interface Walked {
  /** Posix path relative to the root, each name as names.ts reads it. */
  relative: string;
  name: string;
  /** Folders between the root and the entry: 0 for an entry of the root itself. */
  depth: number;
  /** As lstat sees it: a link is a link. */
  stat: fs.Stats;
}

export interface WalkOptions {
  /** Depth first, each folder walked where it is met (as a recursion would), or breadth first, level by level. */
  order?: 'depth' | 'breadth';
  /** Whether to enter a folder (every one by default); asked right before it would be, after the caller has seen it. */
  enter?: (folder: Walked) => boolean;
  /** How a path relative to the root is named in a refusal ('' is the root). */
  show: (relative: string) => string;
}

interface Folder {
  bytes: Buffer;
  relative: string;
  /** Folders between the root and this folder's entries. */
  depth: number;
}

const child = (folder: Folder, name: string) => ({
  bytes: Buffer.concat([folder.bytes, Buffer.from('/'), nameBytes(name)]),
  relative: folder.relative ? `${folder.relative}/${name}` : name,
});

/**
 * Every entry under `root`, charged to `budget`: each as it is listed (a refusal names the folder
 * being listed: the order a file system lists in is its own), each folder before it is entered.
 * File sizes are the caller's to charge, for the files whose bytes it takes.
 */
export function* walkFolder(root: string, budget: WalkBudget, options: WalkOptions): Generator<Walked> {
  const enter = options.enter ?? (() => true);
  const list = (folder: Folder) => listNames(folder.bytes, () => budget.entry(options.show(folder.relative)));
  const met = (folder: Folder, entry: NamedEntry): Walked & { bytes: Buffer } => {
    const { bytes, relative } = child(folder, entry.name);
    return { bytes, relative, name: entry.name, depth: folder.depth, stat: fs.lstatSync(bytes) };
  };
  const inside = (walked: Walked & { bytes: Buffer }): Folder | undefined => {
    if (!walked.stat.isDirectory() || !enter(walked)) return undefined;
    budget.folder(options.show(walked.relative), walked.depth + 1);
    return { bytes: walked.bytes, relative: walked.relative, depth: walked.depth + 1 };
  };
  const top: Folder = { bytes: Buffer.from(root), relative: '', depth: 0 };
  if (options.order === 'breadth') {
    // Folders are entered (and `enter` asked) when their turn comes, after every entry above them.
    const queue: (Walked & { bytes: Buffer })[] = [];
    for (let at = 0, folder: Folder | undefined = top; ; folder = inside(queue[at++])) {
      if (folder) {
        for (const entry of list(folder)) {
          const walked = met(folder, entry);
          yield walked;
          if (walked.stat.isDirectory()) queue.push(walked);
        }
      }
      if (at === queue.length) return;
    }
  }
  const stack = [{ folder: top, entries: list(top), next: 0 }];
  while (stack.length > 0) {
    const cursor = stack[stack.length - 1];
    if (cursor.next === cursor.entries.length) {
      stack.pop();
      continue;
    }
    const walked = met(cursor.folder, cursor.entries[cursor.next++]);
    yield walked;
    const folder = inside(walked);
    if (folder) stack.push({ folder, entries: list(folder), next: 0 });
  }
}
