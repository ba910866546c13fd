/**
 * Edits at token positions, from the parse tree (normalise.ts) to the scanner pass (tokens.ts):
 * a flag per text position says whether a token starting (or, for AFTER, ending) there has an
 * edit, so that the scanner looks one up only where there is one.
 */

/** A token to add: its text, or a copy of the tokens kept from a range of the source. */
export type Insert = string | { copy: readonly [start: number, end: number] };

/** What the scanner pass is told about a text position (Edits.marks). */
export const DROP = 1;
export const REPLACE = 2;
export const BEFORE = 4;
export const AFTER = 8;
/** The parser saw a name there: `out`, `type` or `of` can be a variable, which the scanner calls a keyword. */
export const NAME = 16;

export interface Edits {
  /** Per text position, the flags above. */
  marks: Uint8Array;
  /** Ranges [start, end) whose every token is dropped, sorted and disjoint. */
  dropRanges: [number, number][];
  /** Tokens replaced by others, by position. */
  replace: Map<number, Insert[]>;
  /** Tokens added before the token at a position (kept or not). */
  before: Map<number, Insert[]>;
  /** Tokens added after the token that ends at a position (kept or not), innermost construct first. */
  after: Map<number, Insert[]>;
}

export class EditList {
  private readonly edits: Edits;
  private readonly ranges: [number, number][] = [];

  constructor(textLength: number) {
    this.edits = { marks: new Uint8Array(textLength + 1), dropRanges: [], replace: new Map(), before: new Map(), after: new Map() };
  }

  /** The token at `at` (−1: none found) is dropped. */
  drop(at: number): void {
    if (at >= 0) this.edits.marks[at] |= DROP;
  }

  dropRange(start: number, end: number): void {
    this.ranges.push([start, end]);
  }

  replace(at: number, inserts: Insert[]): void {
    if (at < 0) return;
    this.edits.marks[at] |= REPLACE;
    this.edits.replace.set(at, inserts);
  }

  before(at: number, inserts: Insert[]): void {
    this.edits.marks[at] |= BEFORE;
    this.edits.before.set(at, [...(this.edits.before.get(at) ?? []), ...inserts]);
  }

  after(at: number, inserts: Insert[]): void {
    this.edits.marks[at] |= AFTER;
    this.edits.after.set(at, [...(this.edits.after.get(at) ?? []), ...inserts]);
  }

  name(at: number): void {
    this.edits.marks[at] |= NAME;
  }

  /** The edits, the dropped ranges merged. */
  done(): Edits {
    this.ranges.sort((a, b) => a[0] - b[0]);
    for (const [start, end] of this.ranges) {
      const last = this.edits.dropRanges.at(-1);
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else this.edits.dropRanges.push([start, end]);
    }
    return this.edits;
  }
}
