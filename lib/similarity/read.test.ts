/**
 * A submission's files read one by one (read.ts): the same tokens, each in the same place, as the
 * joined text the page shows; a file that cannot be read named in the reason.
 */
import { describe, expect, it } from 'vitest';
import { NESTING_LIMIT } from '../text/nesting';
import { tokenIds } from './fingerprints';
import { readFiles } from './read';
import { joinFiles, tokenise } from './tokens';

const FILES = new Map([
  ['helpers/b.ts', 'export const b = (x: number) => x * 2;\r\nexport function c(y) {\r\n  return b(y) + 1;\r\n}\r\n'],
  ['index.ts', "import { b } from './helpers/b';\n\nexport function f(q) {\n  for (let i = 0; i < q.length; i++) q[i] = b(q[i]);\n  return q;\n}"],
  ['a.ts', 'export const a = [1, 2,\n  3];\n'],
  ['notes.md', '# not code'],
]);

describe('readFiles', () => {
  it('gives the tokens of the joined text, each where the page shows it', () => {
    const joined = tokenise(joinFiles(FILES, 'index.ts'));
    const read = readFiles(FILES, 'index.ts', 'alice');
    expect('ids' in read && [...read.ids]).toEqual([...tokenIds(joined.tokens)]);
    expect('spans' in read && [...read.spans]).toEqual([...joined.spans]);
  });

  it('names the file it cannot read, where, and why; and the files it read before', () => {
    const reading: string[] = [];
    const deep = new Map([...FILES, ['b.ts', `let v;\nv = ${'('.repeat(2 * NESTING_LIMIT)}1${')'.repeat(2 * NESTING_LIMIT)};\n`]]);
    const read = readFiles(deep, 'index.ts', 'alice', (file) => reading.push(file));
    expect(read).toEqual({ problem: expect.stringMatching(new RegExp(`^nesting too deep at alice/b\\.ts:2:${4 + NESTING_LIMIT}: more than ${NESTING_LIMIT} brackets`)), refused: true });
    expect(reading).toEqual(['index.ts', 'a.ts', 'b.ts']);
  });
});
