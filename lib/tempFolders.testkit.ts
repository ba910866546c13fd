/** Temp folders for lib's unit tests: each call a fresh one, removed after the test that made it. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** Call at a test file's top level: the folder maker its tests use (`prefix` names the file's folders). */
export function tempFolders(prefix: string): () => string {
  const made: string[] = [];
  afterEach(() => made.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
