/**
 * The process that type-checks submissions (check.ts) for the grader: `{ submissions, alone,
 * transpile? }` as JSON on stdin; on stdout one JSON line as each step starts or ends, so that the
 * grader can give each step a time limit of its own and stop only the one that runs past it:
 * - `transpile` (a grading of one submission, lib/grading/grade.ts): that submission transpiled
 *   first, as the transpiling process would (lib/sandbox/transpile.ts), since its grading waits on
 *   it and not on the check: `{"transpiling":true}`, `{"reading":file,"step":…}` before each file
 *   is parsed, then `{"transpiled":…}` or `{"transpileFailed":message}`. TypeScript is loaded here
 *   anyway, and a process of its own for the transpile cost a grading about 0.4 s of CPU;
 * - the checks: `{"settingUp":true}`, `{"checking":name}`, `{"checked":name,"errors":[…]}`.
 * A process of its own, so that TypeScript on hostile code can be stopped and capped in memory.
 */
import type { TranspileJob } from '../sandbox/prepared';
import { transpileSubmission } from '../sandbox/transpile';
import { checkEach, type CheckedSubmission } from './check';

// process.stdout writes to a pipe synchronously on Linux: the grader sees `checking` before the
// check it announces starts.
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

const chunks: Buffer[] = [];
process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
process.stdin.on('end', () => {
  const { submissions, alone, transpile } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { submissions: CheckedSubmission[]; alone: boolean; transpile?: TranspileJob };
  if (transpile) {
    say({ transpiling: true });
    try {
      say({ transpiled: transpileSubmission(transpile, (file, step) => say({ reading: file, step })) });
    } catch (err) {
      say({ transpileFailed: (err as Error)?.message ?? String(err) });
    }
  }
  checkEach(submissions, {
    settingUp: () => say({ settingUp: true }),
    checking: (name) => say({ checking: name }),
    checked: (name, errors) => say({ checked: name, errors }),
  }, alone);
});
