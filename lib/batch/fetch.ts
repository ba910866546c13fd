/**
 * Fetching a course's submissions from GitHub (the `Grade course` workflow, classroom/): every
 * repository of a list is cloned at its default branch, shallow, into `<out>/<repository name>`,
 * its .git removed, so the folder is one submission as the batch grader takes it (the intake finds
 * student/index.ts inside a whole repository). A token, when given, travels to git in its
 * environment (never on a command line) as the header GitHub's HTTPS endpoint expects.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

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
}

function gitEnv(token: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  if (!token) return env;
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  return { ...env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.https://github.com/.extraheader', GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${basic}` };
}

function clone(url: string, dest: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return new Promise((resolve) => {
    const git = spawn('git', ['clone', '--quiet', '--depth', '1', '--', url, dest], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const err: Buffer[] = [];
    git.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    git.on('error', (e) => resolve(e.message));
    git.on('close', (code) => resolve(code === 0 ? undefined : Buffer.concat(err).toString('utf8').trim().split('\n').at(-1) || `git exited ${code}`));
  });
}

/** Clones every repository; throws FetchError naming each one that could not be cloned, after trying them all. */
export async function cloneRepositories(repositories: readonly Repository[], outDir: string, options: CloneOptions): Promise<void> {
  fs.mkdirSync(outDir, { recursive: true });
  const env = gitEnv(options.token);
  const queue = [...repositories];
  const failed: string[] = [];
  const worker = async () => {
    for (let repo = queue.shift(); repo; repo = queue.shift()) {
      const dest = path.join(outDir, repo.name);
      fs.rmSync(dest, { recursive: true, force: true });
      const problem = await clone(`${options.baseUrl}${repo.slug}.git`, dest, env);
      if (problem) failed.push(`${repo.slug} (${problem})`);
      else fs.rmSync(path.join(dest, '.git'), { recursive: true, force: true });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.jobs) }, worker));
  if (failed.length) {
    throw new FetchError(`could not clone ${failed.length} of ${repositories.length} repositories: ${failed.sort().join('; ')}; ` +
      'check the list and that the token can read them');
  }
}
