/**
 * The process that type-checks submissions (check.ts) for the grader: submissions as JSON on
 * stdin, errors by submission name as JSON on stdout. A process of its own, so that TypeScript
 * on hostile code can be stopped at a time limit and capped in memory.
 */
import { typeErrors, type CheckedSubmission } from './check';

const chunks: Buffer[] = [];
process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
process.stdin.on('end', () => {
  const submissions = JSON.parse(Buffer.concat(chunks).toString('utf8')) as CheckedSubmission[];
  process.stdout.write(JSON.stringify(Object.fromEntries(typeErrors(submissions))));
});
