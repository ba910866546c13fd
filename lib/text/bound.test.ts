import { describe, expect, it } from 'vitest';
import { boundFeedback, FEEDBACK_LIMITS } from './bound';

describe('a result keeps a bounded few notes of each kind', () => {
  it('a hundred thousand syntax errors are ten, then one line saying how many more', () => {
    const notes = Array.from({ length: 100_000 }, (_, i) => `syntax error at s/index.ts:${i + 2}: Declaration or statement expected.`);
    const kept = boundFeedback(['Ignored: lib/ in s', ...notes, 'Type errors (no points): …']);
    expect(kept).toEqual([
      'Ignored: lib/ in s',
      ...notes.slice(0, FEEDBACK_LIMITS.perKind),
      '… and 99990 more like the one above',
      'Type errors (no points): …',
    ]);
  });

  it('notes of other kinds keep their places; notes and their lengths are capped in all', () => {
    const kinds = Array.from({ length: 100 }, (_, k) => Array.from({ length: 3 }, (_, i) => `kind ${'x'.repeat(k)} note ${i}`)).flat();
    const kept = boundFeedback(kinds);
    expect(kept).toHaveLength(FEEDBACK_LIMITS.notes + 1);
    expect(kept.at(-1)).toBe(`… and ${300 - FEEDBACK_LIMITS.notes} more notes`);
    const long = boundFeedback(['y'.repeat(1_000_000)])[0];
    expect(long.length).toBeLessThan(FEEDBACK_LIMITS.noteChars + 100);
    expect(long).toMatch(/… \(983616 more characters\)$/);
  });

  it('a missing import per line of a file is one kind whatever the file names', () => {
    const notes = Array.from({ length: 500 }, (_, i) => `s/index.ts imports "./m${i}", which is not in your folder: add the file or fix the path`);
    expect(boundFeedback(notes)).toHaveLength(FEEDBACK_LIMITS.perKind + 1);
  });
});
