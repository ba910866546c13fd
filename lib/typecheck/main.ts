/**
 * The process that type-checks submissions (check.ts) for the grader: `{ submissions, alone }` as
 * JSON on stdin; on stdout one JSON line as each step starts or ends (`{"settingUp":true}`,
 * `{"checking":name}`, `{"checked":name,"errors":[…]}`), so that the grader can give each
 * submission a time limit of its own and stop only the check that runs past it. A process of its
 * own, so that TypeScript on hostile code can be stopped and capped in memory.
 */
import { checkEach, type CheckedSubmission } from './check';

// process.stdout writes to a pipe synchronously on Linux: the grader sees `checking` before the
// check it announces starts.
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

const chunks: Buffer[] = [];
process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
process.stdin.on('end', () => {
  const { submissions, alone } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { submissions: CheckedSubmission[]; alone: boolean };
  checkEach(submissions, {
    settingUp: () => say({ settingUp: true }),
    checking: (name) => say({ checking: name }),
    checked: (name, errors) => say({ checked: name, errors }),
  }, alone);
});
