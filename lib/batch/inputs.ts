/**
 * A batch's two folders, checked before anything runs: a mistake here is the command's, said in one
 * line with its fix, never a gradebook of nonsense rows.
 * - --submissions names one submission (its index.ts in it, or a student's copy of the project):
 *   its files would be graded as students; --submission grades it.
 * - --out is --submissions, or inside it: the results would become a submission (or part of a
 *   student's) on the next run. --submissions at or under --out's own folders (submissions/,
 *   .cache/): the results would be written among the submissions. Compared by real paths, so a
 *   link or `..` does not hide it. Submissions elsewhere in --out (a course folder holding both) are fine.
 * - --submissions holds no submission: there is nothing to grade (a folder of zips, say).
 * Paths are shown as the command gave them: these lines are for the person who typed them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readFetched } from './fetched';
import { SUBMISSIONS_DIR } from '../report/layout';
import { batchOutputsIn, listSubmissions } from './listing';
import { CACHE_DIR } from '../workCache';
import { entryOnItsFace } from '../intake/upload';

/** The batch cannot start; the message is one line naming the folders and the fix. */
export class BatchInputError extends Error {
  override name = 'BatchInputError';
}

/** `p` absolute, with every part that exists resolved (links, `..`), the rest as given. */
export function realPath(p: string): string {
  const absolute = path.resolve(p);
  const rest: string[] = [];
  for (let at = absolute; ; at = path.dirname(at)) {
    try {
      return path.join(fs.realpathSync.native(at), ...rest.reverse());
    } catch {
      if (path.dirname(at) === at) return absolute;
      rest.push(path.basename(at));
    }
  }
}

/** Whether `inner` is `outer` or lies inside it (both real paths). */
const within = (inner: string, outer: string): boolean => {
  const relative = path.relative(outer, inner);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
};

function checkOverlap(submissions: string, out: string): void {
  const [s, o] = [realPath(submissions), realPath(out)];
  if (s === o) throw new BatchInputError(`--out ${out} and --submissions ${submissions} are the same folder: the results would be graded as a submission on the next run; put --out outside it`);
  if (within(o, s)) {
    throw new BatchInputError(`--out ${out} is inside --submissions ${submissions}: the next run would grade the results as a submission; put --out outside it`);
  }
  const own = [SUBMISSIONS_DIR, CACHE_DIR].find((name) => within(s, realPath(path.join(out, name))));
  if (own) throw new BatchInputError(`--submissions ${submissions} is ${path.join(out, own)}, where the batch writes its own files: move the submissions out of --out ${out}`);
}

function checkNotOne(submissions: string): void {
  const entry = entryOnItsFace(submissions);
  if (!entry) return;
  const what = entry.includes('/') ? `${entry} beside the project's files: it is one student's copy of the project` : `${entry} itself: it is one submission`;
  throw new BatchInputError(`--submissions ${submissions} holds ${what}; grade it with --submission ${submissions} (--submissions takes a folder with one subfolder per submission)`);
}

function checkNotEmpty(submissions: string, names: readonly string[]): void {
  // A repository fetch-submissions could not fetch has no folder, and still its row.
  if (names.length > 0 || [...readFetched(submissions).values()].some((f) => f.error)) return;
  const archives = fs.readdirSync(submissions).filter((name) => /\.(zip|tar|tgz|tar\.gz)$/i.test(name)).length;
  const fix = archives > 0 ? `it holds ${archives} archive(s): unpack each into a folder of its own` : 'each submission is a subfolder of it (<name>/index.ts)';
  throw new BatchInputError(`--submissions ${submissions} holds no submission: ${fix}`);
}

/**
 * Throws BatchInputError when the batch cannot start; otherwise the subfolders of `submissions`
 * listSubmissions leaves out as a batch's output, for the command to say once.
 */
export function checkBatchInputs(submissions: string, out: string): { leftOut: string[] } {
  checkOverlap(submissions, out);
  checkNotOne(submissions);
  checkNotEmpty(submissions, listSubmissions(submissions));
  return { leftOut: batchOutputsIn(submissions) };
}
