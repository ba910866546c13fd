/**
 * Which of a few known words someone meant by what they typed: a flag misspelt on a command line
 * (`--submision`, `--sumbission`, `--Submission`, `-submission`, `—submission` pasted from a page).
 * A typing slip is a letter left out, added, replaced or two letters swapped, so the distance is
 * edit distance with adjacent transpositions (optimal string alignment).
 */

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`, by code point. */
export function typoDistance(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  const d = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[x.length][y.length];
}

/** How many slips a word of this length may hold and still be taken for another: a quarter of its length, rounded up, at most 3. */
const slipsAllowed = (length: number): number => Math.min(3, Math.max(1, Math.ceil(length / 4)));

/** The words of `known` nearest to `typed` (at most `most`, in `known`'s order): a slip away, else those it begins. */
export function meantWords(typed: string, known: readonly string[], most = 3): string[] {
  if (typed === '') return [];
  const length = Array.from(typed).length;
  const distances = known.map((word) => typoDistance(typed, word));
  const best = Math.min(...distances);
  if (best <= slipsAllowed(length)) return known.filter((_, i) => distances[i] === best).slice(0, most);
  // A flag cut short (`--sub`), or one with a word added (`--html-file`).
  const cut = known.filter((word) => length >= 2 && word.startsWith(typed));
  const longer = known.filter((word) => typed.startsWith(`${word}-`));
  return (cut.length ? cut : longer).slice(0, most);
}
