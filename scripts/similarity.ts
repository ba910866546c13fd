/**
 * npm run similarity -- --submissions DIR --out OUT [--base DIR] [--threshold P]: which submissions
 * share code, offline. Writes OUT/similarity.csv and OUT/similarity.html (lib/similarity/).
 * Exits 0 when it wrote them, 1 when it could not compare, 2 on a usage error.
 */
import fs from 'node:fs';
import { exitWithUsage, parseFlags } from '../lib/cli';
import { committedStubs, handoutFolder, HandoutError, type Handout } from '../lib/similarity/handout';
import { DEFAULT_THRESHOLD, runSimilarity } from '../lib/similarity/run';
import { oneLine } from '../lib/text/sanitise';

const USAGE = 'npm run similarity -- --submissions DIR --out OUT [--base DIR] [--threshold P]';
const HELP = `Compares every submission of DIR with every other, offline: which share code once names,
literals, comments, layout, types, syntax that changes nothing (semicolons, needless parentheses and
braces, one spelling of a meaning for another) and the handout's own code are set aside. Evidence
for a person to read, never a verdict: similar code on a 20-line exercise is expected.

usage: ${USAGE}

  --submissions DIR  one subfolder per submission, read as the grader reads them (no links, size caps)
  --out OUT          writes OUT/similarity.csv (the pairs at or above the threshold, most shared code
                     first, then the best others: score, each side's share, shared tokens, longest
                     shared fragment in tokens) and OUT/similarity.html (score distribution, groups of
                     three or more, the pairs at or above the threshold side by side)
  --base DIR         the handout's code, removed from every submission (default: the stubs of student/
                     as committed, read from git: never the working copy, where a solution may be tried)
  --threshold P      pairs sharing at least this share of their fingerprints are listed and shown
                     (0 < P <= 1, default ${DEFAULT_THRESHOLD})
  --help             this text`;

const flags = parseFlags(process.argv.slice(2), { submissions: 'string', out: 'string', base: 'string', threshold: 'number' }, USAGE, HELP);
if (!flags.submissions || !flags.out) {
  exitWithUsage(`${flags.submissions ? '--out OUT' : '--submissions DIR'} is needed`, USAGE);
}
if (!fs.existsSync(flags.submissions) || !fs.statSync(flags.submissions).isDirectory()) {
  // A folder that is not there is the command's mistake, said in one line as npm run grade says it.
  console.error(`similarity: --submissions ${flags.submissions}: no such folder; pass a folder with one subfolder per submission`);
  process.exit(2);
}
if (flags.base !== undefined && !fs.existsSync(flags.base)) {
  console.error(`similarity: --base ${flags.base}: no such folder; pass --base DIR with the stubs students were given`);
  process.exit(2);
}
if (flags.threshold !== undefined && flags.threshold > 1) {
  exitWithUsage(`--threshold needs a share between 0 and 1, got ${flags.threshold}`, USAGE);
}
let handout: Handout;
try {
  handout = flags.base === undefined ? committedStubs() : handoutFolder(flags.base);
} catch (err) {
  if (!(err instanceof HandoutError)) throw err;
  console.error(`similarity: ${oneLine(err.message)}`);
  process.exit(1);
}

runSimilarity({ submissions: flags.submissions, out: flags.out, handout, threshold: flags.threshold })
  .then((outcome) => {
    console.log(`compared ${outcome.compared} submissions: ${outcome.flagged.length} pair(s) at or above ${Math.round((flags.threshold ?? DEFAULT_THRESHOLD) * 100)}%, `
      + `${outcome.groups.length} group(s) of three or more; handout subtracted: ${handout.described}`);
    for (const s of outcome.notCompared) console.log(`not compared: ${oneLine(s.name)}: ${oneLine(s.problem)}`);
    console.log(`wrote ${outcome.files.csv} and ${outcome.files.html}`);
  })
  .catch((err: unknown) => {
    console.error(`similarity: failed: ${oneLine(String((err as Error)?.message ?? err))}`);
    process.exit(1);
  });
