/**
 * Fetching a course's submissions from GitHub (the `Grade course` workflow, classroom/): every
 * repository of a list is cloned at its default branch, shallow, into `<out>/<repository name>`,
 * its .git removed, so the folder is one submission as the batch grader takes it (the intake finds
 * student/index.ts inside a whole repository). A token, when given, travels to git in its
 * environment (never on a command line) as the header GitHub's HTTPS endpoint expects.
 *
 * Nothing but regular files leaves a fetch (fetchedEntries.ts): a repository whose commit holds a
 * symbolic link, a submodule or anything else is not fetched, and its row says which entry. A link
 * is resolved by whatever copies the folder next (the workflow's artifact stored a link to
 * ../../../reference/index.ts as the reference's bytes), so it must not reach anything that copies.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { FETCHED_FILE, type FetchedRecord } from './fetched';
import { notRegular, treeProblem } from './fetchedEntries';

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
}

function gitEnv(token: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  if (!token) return env;
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  return { ...env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.https://github.com/.extraheader', GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${basic}` };
}

const ABOUT = 'written by npm run fetch-submissions: the commit of each submission, or why it could not be fetched';

function firstError(text: string): string | undefined {
  const lines = text.trim().split('\n').map((line) => line.trim()).filter(Boolean);
  return lines.find((line) => /^(fatal|error):/.test(line)) ?? lines.at(-1);
}

function git(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<{ ok: boolean; out: string; raw: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const [out, err]: Buffer[][] = [[], []];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (e) => resolve({ ok: false, out: '', raw: '', err: e.message }));
    child.on('close', (code) => resolve({
      ok: code === 0,
      out: Buffer.concat(out).toString('utf8').trim(),
      raw: Buffer.concat(out).toString('utf8'),
      // git's own verdict ("fatal: …", "error: …"), not the hint lines that follow it.
      err: firstError(Buffer.concat(err).toString('utf8')) || `git exited ${code}`,
    }));
  });
}

/**
 * Clones one repository into `dest` at its default branch's last commit, or with a deadline its
 * last commit before it (the whole history is fetched to find it); the commit graded, or why not.
 */
async function fetchOne(url: string, dest: string, env: NodeJS.ProcessEnv, deadline: string | undefined): Promise<{ commit?: string; committed_at?: string; error?: string }> {
  const cloned = await git(['clone', '--quiet', ...(deadline ? ['--no-checkout'] : ['--depth', '1']), '--', url, dest], env);
  if (!cloned.ok) return { error: cloned.err };
  let commit: string;
  if (deadline) {
    const before = await git(['rev-list', '-1', `--before=${deadline}`, 'HEAD'], env, dest);
    if (!before.ok) return { error: before.err };
    if (!before.out) return { error: `no commit before the deadline ${deadline}` };
    commit = before.out;
    const checkout = await git(['checkout', '--quiet', commit, '--', '.'], env, dest);
    if (!checkout.ok) return { error: checkout.err };
  } else {
    const head = await git(['rev-parse', 'HEAD'], env, dest);
    if (!head.ok) return { error: head.err };
    commit = head.out;
  }
  // What the commit holds, as git records it (a link is mode 120000, a submodule 160000), then what
  // the checkout wrote, as the file system has it: either may not be a regular file or a folder.
  const tree = await git(['ls-tree', '-r', '-z', '--full-tree', commit], env, dest);
  if (!tree.ok) return { error: tree.err };
  const problem = treeProblem(tree.raw) ?? notRegular(dest);
  if (problem) return { error: problem };
  // Its commit time, for a late policy (--late-policy): the time the deadline above goes by too.
  const when = await git(['show', '-s', '--format=%cI', commit], env, dest);
  return { commit, ...(when.ok && when.out ? { committed_at: when.out } : {}) };
}

export interface FetchOutcome {
  fetched: number;
  /** owner/name (why), for each repository that could not be fetched. */
  failed: string[];
}

/**
 * Clones every repository. One that cannot be fetched (gone, private, a file name too long for this
 * file system, no commit before the deadline) leaves no folder, only its reason in FETCHED_FILE,
 * which the batch grader turns into a row of its own: every other repository is still graded.
 */
export async function cloneRepositories(repositories: readonly Repository[], outDir: string, options: CloneOptions): Promise<FetchOutcome> {
  fs.mkdirSync(outDir, { recursive: true });
  const env = gitEnv(options.token);
  const queue = [...repositories];
  const record: FetchedRecord = { about: ABOUT, ...(options.deadline && { deadline: options.deadline }), repositories: {} };
  const worker = async () => {
    for (let repo = queue.shift(); repo; repo = queue.shift()) {
      const dest = path.join(outDir, repo.name);
      fs.rmSync(dest, { recursive: true, force: true });
      const outcome = await fetchOne(`${options.baseUrl}${repo.slug}.git`, dest, env, options.deadline);
      if (outcome.error) fs.rmSync(dest, { recursive: true, force: true });
      else fs.rmSync(path.join(dest, '.git'), { recursive: true, force: true });
      record.repositories[repo.name] = { slug: repo.slug, ...outcome };
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.jobs) }, worker));
  fs.writeFileSync(path.join(outDir, FETCHED_FILE), `${JSON.stringify(record, null, 2)}\n`);
  const failed = Object.values(record.repositories).filter((r) => r.error).map((r) => `${r.slug} (${r.error})`).sort();
  return { fetched: repositories.length - failed.length, failed };
}
