/**
 * Whether a child that runs as another user than the grader can reach the child runtime at all:
 * every folder on the way must let other users enter it (the x bit for others). A project checked
 * out under a home folder of mode 700, or a temp folder made by mkdtemp, does not, and the child
 * then dies before its runtime starts with nothing but Node's "cannot find module".
 */
import fs from 'node:fs';
import path from 'node:path';

/** The outermost folder on the way to `dir` (itself included) that others may not enter, with its mode, or undefined. */
export function closedToOthers(dir: string): { folder: string; mode: string } | undefined {
  const way: string[] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    way.unshift(at);
    if (path.dirname(at) === at) break;
  }
  for (const folder of way) {
    let mode: number;
    try {
      mode = fs.statSync(folder).mode;
    } catch {
      return undefined;
    }
    if (!(mode & 0o001)) return { folder, mode: (mode & 0o777).toString(8) };
  }
  return undefined;
}
