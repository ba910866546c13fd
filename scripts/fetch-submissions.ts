/**
 * npm run fetch-submissions -- --repositories FILE --out DIR: clones each repository FILE lists
 * (owner/name, one a line) into DIR/<name>, ready for `npm run grade -- --submissions DIR`. A token
 * for private repositories comes from the environment variable SUBMISSIONS_TOKEN, never a flag.
 * A repository that cannot be fetched, or is past the fetch's bounds (lib/batch/fetch.ts), is
 * named on stderr and recorded in DIR/.fetched.json, which the batch grader turns into a row of its
 * own ("not fetched: …"); the others are fetched and graded. With --deadline, each repository's
 * last commit before it is taken. Exits 0 when any repository was fetched, 1 when none could be, 2
 * on a usage error.
 */
import fs from 'node:fs';
import { exitWithUsage, parseFlags } from '../lib/cli';
import { cloneRepositories, FETCH_LIMITS, FetchError, parseRepositoryList } from '../lib/batch/fetch';
import { sizeWords } from '../lib/intake/walkBudget';
import { oneLine } from '../lib/text/sanitise';

const USAGE = 'npm run fetch-submissions -- --repositories FILE --out DIR [--deadline TIME] [--jobs N]';
const { entries, depth, fileBytes, totalBytes, scratchBytes, seconds } = FETCH_LIMITS;
const HELP = `usage: ${USAGE}\n\nFetches each repository FILE lists (owner/name, one a line) into DIR/<name>, without its .git;\n` +
  'SUBMISSIONS_TOKEN in the environment reads private ones. --deadline TIME (ISO 8601, e.g. 2026-12-01T23:59:00Z)\n' +
  'takes each repository\'s last commit before TIME (by commit date, which a student\'s clock sets). A repository\n' +
  `that cannot be fetched, or is past the fetch's bounds (${entries} files and folders, ${depth} deep, ${sizeWords(fileBytes)} a file,\n` +
  `${sizeWords(totalBytes)} in all, a ${sizeWords(scratchBytes)} download, ${seconds} s), is a row of its own in the gradebook\n` +
  '("not fetched: …"); the others are graded.';
const flags = parseFlags(process.argv.slice(2), { repositories: 'string', out: 'string', deadline: 'string', jobs: 'number', help: 'boolean' }, USAGE, HELP);
if (flags.deadline !== undefined && !/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(flags.deadline)) {
  exitWithUsage(`--deadline ${flags.deadline.slice(0, 40)} is not a time: write it as ISO 8601, e.g. 2026-12-01T23:59:00Z`, USAGE);
}
if (!flags.repositories || !flags.out) {
  exitWithUsage('--repositories FILE and --out DIR are both needed', USAGE);
}

async function main(file: string, out: string): Promise<void> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new FetchError(`${file} not found: pass a file listing the student repositories, owner/name one a line`);
  }
  const repositories = parseRepositoryList(text, file);
  const outcome = await cloneRepositories(repositories, out, {
    // A mirror or a local folder for trials and the self-test; GitHub otherwise.
    baseUrl: process.env.SUBMISSIONS_BASE_URL || 'https://github.com/',
    token: process.env.SUBMISSIONS_TOKEN || undefined,
    jobs: flags.jobs ?? 8,
    deadline: flags.deadline,
  });
  for (const failed of outcome.failed) console.error(`fetch-submissions: not fetched: ${oneLine(failed)}`);
  console.log(`fetched ${outcome.fetched} of ${repositories.length} submissions into ${out}` +
    (outcome.failed.length ? `; ${outcome.failed.length} not fetched, each a row of its own in the gradebook (check the list and that the token can read them)` : ''));
  if (outcome.fetched === 0) throw new FetchError(`no repository could be fetched: check the list, the token and the network`);
}

main(flags.repositories, flags.out).catch((err: unknown) => {
  if (!(err instanceof FetchError)) throw err;
  console.error(`fetch-submissions: ${err.message}`);
  process.exit(1);
});
