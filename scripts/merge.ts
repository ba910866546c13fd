/**
 * npm run merge -- OUT1 OUT2 … --out DIR: joins the outputs of `npm run grade -- --submissions …
 * --shard i/n` into one DIR/grades.csv, DIR/submissions/<stem>.json and .html, DIR/report.html and
 * DIR/batch.json, as one machine grading the whole batch would have written them.
 *
 * Exits 0 when it merged; 1 when the outputs do not belong together (one line naming the folder or
 * submission at fault); 2 on a usage error. In GitHub Actions it also writes the job summary.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { exitWithUsage, parseFlags } from '../lib/cli';
import { MergeError, mergeShards } from '../lib/batch/merge';
import { batchSummaryMarkdown } from '../lib/report/githubBatch';
import { formatBatchSummary } from '../lib/report/terminal';
import { oneLine } from '../lib/text/sanitise';
import { CANVAS_CSV, canvasLines, LONG_CSV } from '../lib/report/exports';
import { readRoster, RosterError, type RosterEntry } from '../lib/late/roster';
import { loadAssignment } from '../lib/grading/loadAssignment';
import { CauseBook } from '../lib/report/causes';

const USAGE = 'npm run merge -- OUT1 OUT2 … --out DIR [--roster FILE [--assignment NAME]]';

// Folders are positional; flags are whatever starts with --, with the value that follows --out.
const argv = process.argv.slice(2);
const folders: string[] = [];
const flagArgs: string[] = [];
for (let i = 0; i < argv.length; i++) {
  if (!argv[i].startsWith('--')) folders.push(argv[i]);
  else if (['--out', '--roster', '--assignment'].includes(argv[i]) && i + 1 < argv.length) flagArgs.push(argv[i], argv[++i]);
  else flagArgs.push(argv[i]);
}
const flags = parseFlags(flagArgs, { out: 'string', help: 'boolean', roster: 'string', assignment: 'string' }, USAGE);
if (flags.help) {
  console.log(`usage: ${USAGE}\n\nJoins the --out folders of \`npm run grade -- --submissions DIR --shard i/n\` (i = 1…n, any order) into\n` +
    'DIR/grades.csv, DIR/grades-long.csv, DIR/submissions/<stem>.json and .html, DIR/report.html and DIR/batch.json, as one machine would write them;\n' +
    'with --roster FILE also DIR/canvas.csv (see npm run grade -- --help).\n' +
    'Refuses, naming the culprit, shards graded with other options, parts, cases or fixtures, a shard missing or given twice,\n' +
    'and a submission graded twice.');
  process.exit(0);
}
if (!flags.out || folders.length === 0) {
  exitWithUsage(flags.out ? 'no shard outputs given' : '--out DIR is needed for the merged gradebook', USAGE);
}

let roster: RosterEntry[] | undefined;
try {
  roster = flags.roster ? readRoster(flags.roster) : undefined;
} catch (err) {
  if (!(err instanceof RosterError)) throw err;
  exitWithUsage(oneLine(err.message), USAGE);
}

async function merge(out: string): Promise<void> {
  const assignment = loadAssignment();
  const terms = { functions: assignment.functions, causes: new CauseBook((await assignment.diagnosis?.())?.causes), title: assignment.page.title };
  const merged = mergeShards(folders, out, assignment.cases, terms, { roster, assignment: flags.assignment });
  console.log(`merged ${folders.length} shard output(s): ${merged.rows.length} submissions`);
  console.log(formatBatchSummary(merged.entries));
  console.log(`wrote ${path.join(out, 'grades.csv')} (${merged.rows.length} rows), ${path.join(out, LONG_CSV)} and ${path.join(out, 'report.html')}`);
  if (merged.canvas) {
    const { said, warned } = canvasLines(merged.canvas, path.join(out, CANVAS_CSV));
    console.log(said);
    for (const line of warned) console.error(`merge: ${line}`);
  }
  const summaryFile = process.env.GITHUB_STEP_SUMMARY;
  if (summaryFile) appendFileSync(summaryFile, batchSummaryMarkdown(merged.entries));
}

merge(flags.out).catch((err: unknown) => {
  // One line either way: a refusal names the culprit; anything else is the merge's own failure.
  // Every line about a name goes through the sanitiser, whichever check wrote it.
  if (err instanceof MergeError) console.error(`merge: refused: ${oneLine(err.message)}`);
  else console.error(`merge: failed: ${oneLine(String((err as Error)?.message ?? err))}`);
  process.exit(1);
});
