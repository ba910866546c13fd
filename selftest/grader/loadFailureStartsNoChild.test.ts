/**
 * A submission that cannot load (a syntax error, a refused import, nesting past the bound) starts
 * no contained child: its child was once started ahead of the load check and killed at once, and
 * a stream of such submissions held every uid of the grader's block (own-uids, as in Docker) while
 * those children were still exiting, so every later submission, honest ones too, went ungraded.
 * A submission that loads starts its child as before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/paths';
import { grade, gradeOptions } from './harness';
import { tempDir } from './materialize';

const work = tempDir('no-child');
const starts = path.join(work, 'starts');
const reference = fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8');

/** The grader's own child command, counting each start in a file before it runs. */
function countedChild() {
  const { child } = gradeOptions();
  fs.writeFileSync(starts, '');
  return { ...child, file: '/bin/sh', args: ['-c', `echo start >> ${starts}; exec "$0" "$@"`, child.file, ...child.args] };
}

const submission = (name: string, index: string) => {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.ts'), index);
  return dir;
};

describe('children of submissions that cannot load', () => {
  it('none is started for a syntax error, a refused import or nesting past the bound; one is for a submission that loads', async () => {
    const child = countedChild();
    const failing = {
      syntax_error: reference.replace('Q.shape[Q.ndim - 1]', 'Q.shape[Q.ndim - 1'),
      refused_import: `import fs from 'node:fs';\nexport const f = fs;\n${reference}`,
      nested_too_deep: `${reference}\nexport const zz = ${'('.repeat(5000)}1${')'.repeat(5000)};\n`,
    };
    for (const [name, index] of Object.entries(failing)) {
      const result = await grade(submission(name, index), name, { child });
      expect(result.cases.every((c) => c.status === 'error' || c.status === 'refused'), name).toBe(true);
    }
    expect(fs.readFileSync(starts, 'utf8')).toBe('');
    const honest = await grade(submission('honest', reference), 'honest', { child });
    expect(honest.cases.filter((c) => c.status !== 'passed')).toEqual([]);
    expect(fs.readFileSync(starts, 'utf8')).toMatch(/^start\n/);
  });
});
