/**
 * npm run typecheck [-- --submission DIR]: the type errors of student/ (or DIR), as the grader
 * lists them in its unscored note, one per line, `student/index.ts:40:26: error TS2322: …`. Exits
 * 1 when there is one (or the folder cannot be read), 0 otherwise. A second run over unchanged code
 * answers from node_modules/.cache/typecheck/ (lib/typecheck/student.ts). The instructor's check
 * of the whole repository is `npm run typecheck:project`.
 */
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { IntakeError } from '../lib/intake/intake';
import { checkStudent } from '../lib/typecheck/student';

const USAGE = 'npm run typecheck -- [--submission DIR]';
const flags = parseFlags(process.argv.slice(2), { submission: 'string' }, USAGE);

try {
  const { label, errors, notes, cached } = checkStudent(flags.submission ? path.resolve(flags.submission) : undefined);
  for (const note of notes) console.log(`note: ${note}`);
  for (const error of errors) console.log(error);
  const again = cached ? '; unchanged since the last check' : '';
  console.log(errors.length
    ? `typecheck: ${errors.length} type error${errors.length === 1 ? '' : 's'} in ${label}/ (no points: npm test does not show them, the grader lists them${again})`
    : `typecheck: no type errors in ${label}/${again}`);
  if (errors.length) process.exitCode = 1;
} catch (err) {
  if (!(err instanceof IntakeError)) throw err;
  console.error(`typecheck: ${err.message}`);
  process.exitCode = 1;
}
