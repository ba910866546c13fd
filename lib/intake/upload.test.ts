/**
 * Where the submission is in an upload: the one index.ts at the shallowest depth; two there are
 * refused naming both, since grading either would be a guess. Harness files uploaded beside the
 * student folder are ignored, and the student is told so, with each lib/ file they changed named.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../tempFolders.testkit';
import { PROJECT_ROOT } from '../paths';
import { IntakeError } from './folder';
import { locateSubmission } from './upload';

const uploadDir = tempFolders('upload-');

/** An upload holding `files` (relative path → text). */
function upload(files: Record<string, string>): string {
  const dir = uploadDir();
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

function refusal(dir: string): string {
  try {
    locateSubmission(dir, 'upload');
  } catch (err) {
    if (err instanceof IntakeError) return err.message;
    throw err;
  }
  return 'not refused';
}

describe('locateSubmission', () => {
  it('two entries at the shallowest depth are refused, both named, at any depth the search reaches', () => {
    for (const prefix of ['', 'zip/', 'zip/inner/']) {
      const dir = upload({ [`${prefix}ada/index.ts`]: '', [`${prefix}bo/index.ts`]: '' });
      expect(refusal(dir)).toBe(`upload holds 2 submissions, upload/${prefix}ada/index.ts and upload/${prefix}bo/index.ts: upload only one`);
    }
  });

  it('three or more: the first two named and the rest said; an index.js counts as an entry too', () => {
    const dir = upload({ 'a/index.ts': '', 'b/index.js': '', 'c/index.ts': '' });
    expect(refusal(dir)).toBe('upload holds 3 submissions, upload/a/index.ts and upload/b/index.ts (and more): upload only one');
  });

  it('a shallower entry wins over deeper ones, and index.ts in a harness folder or node_modules is not a candidate', () => {
    const dir = upload({ 'student/index.ts': '', 'student/deeper/index.ts': '', 'lib/index.ts': '', 'node_modules/x/index.ts': '' });
    expect(locateSubmission(dir, 'upload')).toMatchObject({ relative: 'student', entry: 'index.ts' });
  });

  it('harness files beside the student folder are ignored, said once, and each lib/ file the student changed is named', () => {
    const ours = (file: string) => fs.readFileSync(path.join(PROJECT_ROOT, 'lib', file), 'utf8');
    const dir = upload({
      'attention-main/student/index.ts': '',
      'attention-main/package.json': '{}',
      'attention-main/lib/tensor.ts': ours('tensor.ts'),
      'attention-main/lib/compare.ts': `${ours('compare.ts')}\n// my change\n`,
    });
    expect(locateSubmission(dir, 'upload').notes).toEqual([
      'Ignored: lib/, package.json in upload/attention-main: the grader supplies its own copies and grades only your student folder.',
      "Your lib/compare.ts differs from the grader's: only the grader's lib/ is used, so put helpers of your own in your student folder.",
    ]);
  });

  it('an unchanged lib/ is ignored without a word about changes; the student folder uploaded alone has no notes', () => {
    const ours = fs.readFileSync(path.join(PROJECT_ROOT, 'lib', 'tensor.ts'), 'utf8');
    expect(locateSubmission(upload({ 'repo/student/index.ts': '', 'repo/lib/tensor.ts': ours }), 'upload').notes)
      .toEqual(['Ignored: lib/ in upload/repo: the grader supplies its own copies and grades only your student folder.']);
    expect(locateSubmission(upload({ 'index.ts': '' }), 'upload').notes).toEqual([]);
  });
});
