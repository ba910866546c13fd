/**
 * Fetching a course's submissions from GitHub (the `Grade course` workflow, classroom/): every
 * repository of a list is fetched at its default branch's last commit (with a deadline, its last
 * commit before it) into `<out>/<repository name>`, without its .git, so the folder is one
 * submission as the batch grader takes it (the intake finds student/index.ts inside a whole
 * repository). A token, when given, travels to git in its environment (never on a command line) as
 * the header GitHub's HTTPS endpoint expects.
 *
 * A repository is bounded before it is written. It is cloned bare into a scratch folder (no
 * checkout), its download watched and stopped past FETCH_LIMITS.scratchBytes; its commit's tree is
 * then read from git's listing within the fetch's walk budget (fetchedEntries.ts: files and folders,
 * depth, each file's size and all of them; regular files and folders only), and only then are its
 * files written from their blobs (fetchWrite.ts). A repository past any bound, or past its time
 * (every git process of it killed), is not fetched and its row says why; every other is. The
 * clone is not partial (`--filter=blob:none`): the sizes of a tree's files are in its blobs' headers,
 * and `git ls-tree -l` fetches each missing blob on its own to read one; the watch bounds what is
 * downloaded instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { walkFolder } from '../intake/walk';
import { OverBudget, quietBudget, sizeWords, type WalkCaps } from '../intake/walkBudget';
import { FETCHED_FILE, type FetchedRecord } from './fetched';
import { Refused, TreeReader } from './fetchedEntries';
import { runGit, type GitOptions } from './fetchGit';
import { writeEntries } from './fetchWrite';

/** What one repository may take. */
export interface FetchLimits extends WalkCaps {
  /** What its clone may download and keep: the packed commit, with a deadline its whole history. */
  scratchBytes: number;
  /** Wall time from the clone to its last file. */
  seconds: number;
}

/**
 * The handout is some 600 files and 5 MiB: room for a student's own files, none for node_modules,
 * data sets or builds. With 8 clones at once the scratch folders take at most 2 GiB.
 */
export const FETCH_LIMITS: FetchLimits = {
  entries: 5000,
  depth: 16,
  fileBytes: 16 * 1024 ** 2,
  totalBytes: 64 * 1024 ** 2,
  scratchBytes: 256 * 1024 ** 2,
  seconds: 120,
};

/** Beside the submissions while they are fetched, removed after: a name starting with '.' is no submission. */
const SCRATCH_DIR = '.fetching';

/** The list or a repository cannot be fetched; the message names the line or the repositories. */
export class FetchError extends Error {
  override name = 'FetchError';
}

export interface Repository {
  /** owner/name as GitHub spells it. */
  slug: string;
  /** The submission's name: the repository's name. */
  name: string;
}

const SLUG = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})$/;

/** One owner/name a line; blank lines and lines starting with # are skipped. */
export function parseRepositoryList(text: string, file: string): Repository[] {
  const seen = new Map<string, string>();
  const repositories: Repository[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = SLUG.exec(line);
    if (!match || match[2] === '.' || match[2] === '..') {
      throw new FetchError(`${file}:${i + 1}: "${line.slice(0, 80)}" is not owner/name of a GitHub repository; write one a line`);
    }
    const name = match[2];
    const clash = seen.get(name.toLowerCase());
    if (clash) throw new FetchError(`${file}:${i + 1}: ${line} and ${clash} would both be the submission "${name}": list each repository once`);
    seen.set(name.toLowerCase(), line);
    repositories.push({ slug: line, name });
  }
  if (repositories.length === 0) throw new FetchError(`${file} lists no repository: write one owner/name a line`);
  return repositories;
}

export interface CloneOptions {
  /** Where repositories live: `https://github.com/` (a local folder in the self-test). */
  baseUrl: string;
  /** Read access to private repositories; sent as the HTTP authorization header. */
  token?: string;
  /** Clones at once. */
  jobs: number;
  /** Grade the last commit before this time (ISO 8601), not the default branch as it is now. */
  deadline?: string;
  /** FETCH_LIMITS unless given (the self-test's are small). */
  limits?: FetchLimits;
}

/**
 * Git LFS's smudge would download whatever a pointer names; no checkout runs here (fetchWrite.ts),
 * and it is off for any git command that would run one all the same.
 */
const NO_FILTERS = ['-c', 'filter.lfs.smudge=', '-c', 'filter.lfs.process=', '-c', 'filter.lfs.required=false'];

function gitEnv(token: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_LFS_SKIP_SMUDGE: '1' };
  if (!token) return env;
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  return { ...env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.https://github.com/.extraheader', GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${basic}` };
}

const ABOUT = 'written by npm run fetch-submissions: the commit of each submission, or why it could not be fetched';

/** Whether the files under `dir` (git's clone while it works) take more than `limit` bytes; a file gone while it was looked at is looked at next time. */
function over(dir: string, limit: number): boolean {
  const budget = quietBudget({ entries: 100_000, depth: 16, fileBytes: Infinity, totalBytes: limit });
  try {
    for (const entry of walkFolder(dir, budget, { show: () => '' })) if (entry.stat.isFile()) budget.file('', entry.stat.size);
    return false;
  } catch (err) {
    return err instanceof OverBudget;
  }
}

function freeBytes(dir: string): number {
  const stat = fs.statfsSync(dir);
  return stat.bavail * stat.bsize;
}

interface Outcome {
  commit?: string;
  committed_at?: string;
  error?: string;
}

/**
 * Fetches one repository into `dest` through `scratch` at its default branch's last commit, or
 * with a deadline its last commit before it (the whole history is fetched to find it); the commit
 * fetched, or why not.
 */
async function fetchOne(url: string, dest: string, scratch: string, env: NodeJS.ProcessEnv, deadline: string | undefined, limits: FetchLimits): Promise<Outcome> {
  const room = limits.scratchBytes + limits.totalBytes;
  const free = freeBytes(path.dirname(scratch));
  if (free < room) return { error: `the fetch's disk has ${sizeWords(free)} free, less than one repository may take (${sizeWords(room)}): free space, or fetch on a larger disk` };
  const bounds: Omit<GitOptions, 'onStdout' | 'input'> = {
    env, cwd: scratch, until: Date.now() + limits.seconds * 1000,
    overTime: `fetching it took more than ${limits.seconds} s, the most one repository may take: fetch it again; if it is large, remove what is not code from it`,
  };
  const git = (args: string[], extra: Partial<GitOptions> = {}) => runGit([...NO_FILTERS, ...args], { ...bounds, ...extra });
  const tooBig = `its download passed ${sizeWords(limits.scratchBytes)}, the most one repository may take: remove large files from the repository and its history`;
  const cloned = await git(['clone', '--bare', '--quiet', '--no-local', ...(deadline ? [] : ['--depth', '1']), '--', url, scratch], {
    cwd: path.dirname(scratch), watch: () => (over(scratch, limits.scratchBytes) ? tooBig : undefined),
  });
  if (!cloned.ok) return { error: cloned.err };
  if (over(scratch, limits.scratchBytes)) return { error: tooBig };
  const found = await git(deadline ? ['rev-list', '-1', `--before=${deadline}`, 'HEAD'] : ['rev-parse', 'HEAD']);
  if (!found.ok) return { error: found.err };
  if (!found.out) return { error: `no commit before the deadline ${deadline}` };
  const commit = found.out;
  const reader = new TreeReader(limits);
  const tree = await git(['ls-tree', '-r', '-t', '-l', '-z', '--full-tree', commit], { onStdout: (chunk) => reader.push(chunk) });
  if (tree.failure && !(tree.failure instanceof Refused)) throw tree.failure;
  if (!tree.ok) return { error: tree.err };
  let problem: string | undefined;
  try {
    problem = await writeEntries(reader.end(), dest, bounds);
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    problem = err.message;
  }
  if (problem) return { error: problem };
  // Its commit time, for a late policy (--late-policy): the time the deadline above goes by too.
  const when = await git(['show', '-s', '--format=%cI', commit]);
  return { commit, ...(when.ok && when.out ? { committed_at: when.out } : {}) };
}

export interface FetchOutcome {
  fetched: number;
  /** owner/name (why), for each repository that could not be fetched. */
  failed: string[];
}

/**
 * Fetches every repository. One that cannot be fetched (gone, private, a file name too long for a
 * file system, no commit before the deadline, past a bound of FETCH_LIMITS, links or submodules in
 * its commit) leaves no folder, only its reason in FETCHED_FILE,
 * which the batch grader turns into a row of its own: every other repository is still graded.
 */
export async function cloneRepositories(repositories: readonly Repository[], out: string, options: CloneOptions): Promise<FetchOutcome> {
  // Git runs in the scratch folder: every path it is given must mean the same from there.
  const outDir = path.resolve(out);
  const scratchRoot = path.join(outDir, SCRATCH_DIR);
  fs.rmSync(scratchRoot, { recursive: true, force: true });
  fs.mkdirSync(scratchRoot, { recursive: true });
  const env = gitEnv(options.token);
  const queue = [...repositories.entries()];
  const record: FetchedRecord = { about: ABOUT, ...(options.deadline && { deadline: options.deadline }), repositories: {} };
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [at, repo] = next;
      const dest = path.join(outDir, repo.name);
      const scratch = path.join(scratchRoot, String(at));
      fs.rmSync(dest, { recursive: true, force: true });
      try {
        const outcome = await fetchOne(`${options.baseUrl}${repo.slug}.git`, dest, scratch, env, options.deadline, options.limits ?? FETCH_LIMITS);
        if (outcome.error) fs.rmSync(dest, { recursive: true, force: true });
        record.repositories[repo.name] = { slug: repo.slug, ...outcome };
      } finally {
        fs.rmSync(scratch, { recursive: true, force: true });
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.jobs) }, worker));
  } finally {
    fs.rmSync(scratchRoot, { recursive: true, force: true });
  }
  fs.writeFileSync(path.join(outDir, FETCHED_FILE), `${JSON.stringify(record, null, 2)}\n`);
  const failed = Object.values(record.repositories).filter((r) => r.error).map((r) => `${r.slug} (${r.error})`).sort();
  return { fetched: repositories.length - failed.length, failed };
}
