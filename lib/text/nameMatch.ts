/**
 * Names people typed (a roster, a CSV of submission times) matched with the submissions' folder
 * names. A spreadsheet of names is typed by hand and folders are named by tools, so `DARA-ALLEN`,
 * ` dara-allen ` and `dara-allen` are one student, and so are `José` typed on a Mac (é as e + ◌́)
 * and on Linux (é as one character): names match ignoring case, surrounding spaces and Unicode
 * normalisation (NFKC). A name typed exactly as a folder is named wins over a looser match; two
 * folders that only the looser match would confuse are ambiguous, never guessed between. A name
 * that matches nothing is given its nearest name (by edit distance), when one is near.
 */

/** What two names that are one for matching have in common. */
export function nameKey(name: string): string {
  return name.normalize('NFKC').trim().toLowerCase();
}

export type Match = { kind: 'exact' | 'loose'; name: string } | { kind: 'ambiguous'; names: string[] } | { kind: 'none' };

/** Edit distance (insertions, deletions, substitutions) between two strings' code points, or Infinity past `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  const x = Array.from(a);
  const y = Array.from(b);
  if (Math.abs(x.length - y.length) > limit) return Infinity;
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= y.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
      best = Math.min(best, row[j]);
    }
    if (best > limit) return Infinity;
    previous = row;
  }
  return previous[y.length];
}

export class NameMatcher {
  private readonly exact: Set<string>;
  private readonly byKey = new Map<string, string[]>();

  constructor(readonly names: readonly string[]) {
    this.exact = new Set(names);
    for (const name of names) this.byKey.set(nameKey(name), [...(this.byKey.get(nameKey(name)) ?? []), name]);
  }

  /** The name `typed` is, among those not `taken` (names another typed name already is). */
  match(typed: string, taken: ReadonlySet<string> = new Set()): Match {
    if (this.exact.has(typed) && !taken.has(typed)) return { kind: 'exact', name: typed };
    const found = (this.byKey.get(nameKey(typed)) ?? []).filter((name) => !taken.has(name));
    if (found.length === 1) return { kind: 'loose', name: found[0] };
    return found.length > 1 ? { kind: 'ambiguous', names: [...found].sort() } : { kind: 'none' };
  }

  /**
   * Each typed name's match, exact matches first, each name matched once: `Kim` typed beside an
   * exact `kim` is the folder `KIM` when there is one.
   */
  matchAll(typed: readonly string[]): Match[] {
    const taken = new Set<string>();
    const matches: Match[] = typed.map((t) => (this.exact.has(t) && !taken.has(t) ? (taken.add(t), { kind: 'exact', name: t }) : { kind: 'none' }));
    return matches.map((m, i) => {
      if (m.kind !== 'none') return m;
      const loose = this.match(typed[i], taken);
      if (loose.kind === 'loose') taken.add(loose.name);
      return loose;
    });
  }

  /** The name of `among` (default: all) nearest to `typed`, when it is a slip away: at most 2 edits, and fewer than a third of its length. */
  nearest(typed: string, among: readonly string[] = this.names): string | undefined {
    const key = nameKey(typed);
    const limit = Math.min(2, Math.floor(Array.from(key).length / 3));
    let best: { name: string; distance: number } | undefined;
    for (const name of among) {
      const distance = editDistance(key, nameKey(name), limit);
      if (distance <= limit && (!best || distance < best.distance || (distance === best.distance && name < best.name))) best = { name, distance };
    }
    return best?.name;
  }

  /** Groups of two or more names that are one for matching (they differ only by case, spaces or normalisation). */
  lookalikes(): string[][] {
    return [...this.byKey.values()].filter((group) => group.length > 1).map((group) => [...group].sort());
  }
}
