/**
 * npm run fetch-submissions -- --repositories FILE --out DIR: clones each repository FILE lists
 * (owner/name, one a line) into DIR/<name>, ready for `npm run grade -- --submissions DIR`. A token
 * for private repositories comes from the environment variable SUBMISSIONS_TOKEN, never a flag.
 * Exits 1 naming every repository that could not be cloned; 2 on a usage error.
 */
import fs from 'node:fs';
import { parseFlags } from '../lib/cli';
import { cloneRepositories, FetchError, parseRepositoryList } from '../lib/batch/fetch';

const USAGE = 'npm run fetch-submissions -- --repositories FILE --out DIR [--jobs N]';
const flags = parseFlags(process.argv.slice(2), { repositories: 'string', out: 'string', jobs: 'number', help: 'boolean' }, USAGE);
if (flags.help) {
  console.log(`usage: ${USAGE}\n\nClones each repository FILE lists (owner/name, one a line) into DIR/<name>, its .git removed;\n` +
    'SUBMISSIONS_TOKEN in the environment reads private ones.');
  process.exit(0);
}
if (!flags.repositories || !flags.out) {
  console.error(`--repositories FILE and --out DIR are both needed; usage: ${USAGE}`);
  process.exit(2);
}

async function main(file: string, out: string): Promise<void> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new FetchError(`${file} not found: pass a file listing the student repositories, owner/name one a line`);
  }
  const repositories = parseRepositoryList(text, file);
  await cloneRepositories(repositories, out, {
    // A mirror or a local folder for trials and the self-test; GitHub otherwise.
    baseUrl: process.env.SUBMISSIONS_BASE_URL || 'https://github.com/',
    token: process.env.SUBMISSIONS_TOKEN || undefined,
    jobs: flags.jobs ?? 8,
  });
  console.log(`fetched ${repositories.length} submissions into ${out}`);
}

main(flags.repositories, flags.out).catch((err: unknown) => {
  if (!(err instanceof FetchError)) throw err;
  console.error(`fetch-submissions: ${err.message}`);
  process.exit(1);
});
