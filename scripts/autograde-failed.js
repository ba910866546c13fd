/**
 * run_autograder's fallback when scripts/autograde.ts left no results.json because Node could not
 * start it (TypeScript missing, a crash before the script's own handler): the bundle's
 * "Autograder error" result (made by lib/gradescope/errorResults.ts) with the instructors' detail
 * replaced by what Node printed on stderr. Its end is kept when it is long: Node prints the error
 * that ended it last. Plain JavaScript with Node's own modules only: what failed may be the packages.
 *
 * node scripts/autograde-failed.js STATUS STDERR_FILE LIMIT TEMPLATE RESULTS
 */
'use strict';
const fs = require('node:fs');

const [status, stderrFile, limit, template, resultsFile] = process.argv.slice(2);
const results = JSON.parse(fs.readFileSync(template, 'utf8'));
let printed = '';
try {
  printed = fs.readFileSync(stderrFile, 'utf8').trimEnd();
} catch {
  // No file to read: the detail says nothing was printed.
}
const max = Number(limit);
const shown = printed.length > max ? `[… ${printed.length - max} characters left out …]\n${printed.slice(-max)}` : printed;
const details = results.tests.find((test) => test.visibility === 'hidden');
details.output =
  `run_autograder: scripts/autograde.ts ended with exit code ${status} and wrote no results.json; ` +
  `what Node printed on stderr:\n\n${shown || '(nothing)'}`;
fs.writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
