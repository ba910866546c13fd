/**
 * What a batch computed from a submission's files alone, kept for the next run into the same
 * output folder: its transpiled code (lib/sandbox/transpile.ts) and its type check
 * (lib/typecheck). An instructor reruns a course after changing a case, a fixture or the grader;
 * the submissions' files are the same, and so is what TypeScript makes of them. Each entry is
 * named by a sha256 of everything its value depends on (the submission's name and files, and a
 * `salt` that changes with the code and the TypeScript that computed it), so an entry is either
 * exactly what a fresh computation would give or not found. Only finished computations are kept:
 * a timeout or a crash is computed again.
 *
 * The cache lives in `<out>/.cache/`, which no child can read (the output folder is hidden from
 * children, as classmates' results are) and the intake never lists (its name starts with a dot).
 * Entries a run does not use for PRUNE_AFTER_MS are removed at the end of a run.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './fsAtomic';

export const CACHE_DIR = '.cache';
const PRUNE_AFTER_MS = 14 * 24 * 3600 * 1000;

export class WorkCache {
  private readonly folder: string;

  /** `kind` names a subfolder; `salt` is what the cached values depend on besides each key. */
  constructor(outDir: string, kind: string, private readonly salt: string) {
    this.folder = path.join(outDir, CACHE_DIR, kind);
  }

  private file(key: unknown): { file: string; id: string } {
    const id = createHash('sha256').update(this.salt).update('\0').update(JSON.stringify(key)).digest('hex');
    return { file: path.join(this.folder, `${id}.json`), id };
  }

  /** The value kept for `key`, or undefined (none, unreadable, or `valid` refuses it). */
  get<T>(key: unknown, valid: (value: unknown) => value is T): T | undefined {
    const { file, id } = this.file(key);
    try {
      const entry = JSON.parse(fs.readFileSync(file, 'utf8')) as { id?: unknown; value?: unknown };
      if (entry.id !== id || !valid(entry.value)) return undefined;
      const now = new Date();
      fs.utimesSync(file, now, now); // used: not pruned
      return entry.value;
    } catch {
      return undefined;
    }
  }

  /** Keeps `value` for `key`; a cache that cannot be written costs the next run time, nothing else. */
  set(key: unknown, value: unknown): void {
    const { file, id } = this.file(key);
    try {
      fs.mkdirSync(this.folder, { recursive: true, mode: 0o700 });
      writeFileAtomic(file, JSON.stringify({ id, value }));
    } catch {
      // Read-only or full output folder: the grading itself goes on.
    }
  }

  /** Removes entries no run has used for two weeks. */
  prune(now = Date.now()): void {
    let names: string[];
    try {
      names = fs.readdirSync(this.folder);
    } catch {
      return;
    }
    for (const name of names) {
      const file = path.join(this.folder, name);
      try {
        if (now - fs.statSync(file).mtimeMs > PRUNE_AFTER_MS) fs.rmSync(file, { force: true });
      } catch {
        // Removed by a concurrent run: nothing to do.
      }
    }
  }
}
