/**
 * The open brackets of a source as nesting.ts scans it, each with the operators run up inside
 * it, and their sum: an upper bound on how deep a parser is at the current token.
 */

export interface Level {
  /** The bracket that opened it: `(`, `[`, `{`, `${` (a template's placeholder) or `<`; '' for the file. */
  open: string;
  /** Operators since the parsers last came back to a statement or a list item at this level. */
  run: number;
  /**
   * The run a `;` ended, kept for the token after it: an `else` (or the `while` of a `do`) goes on
   * with the statement the `;` seemed to end, still inside every parser.
   */
  saved: number;
  /** `do` statements waiting for their `while`. */
  dos: number;
  /** A `(` right after `if`, `for`, `while` or `with`: after its `)` a statement follows, not an operator. */
  head: boolean;
}

export class Levels {
  private readonly stack: Level[] = [{ open: '', run: 0, saved: 0, dos: 0, head: false }];
  /** Open brackets (the file's own level not counted) plus every level's run. */
  total = 0;

  top(): Level {
    return this.stack[this.stack.length - 1];
  }

  /** One more operator at the current level. */
  count(): void {
    this.top().run++;
    this.total++;
  }

  push(open: string, head = false): void {
    this.stack.push({ open, run: 0, saved: 0, dos: 0, head });
    this.total++;
  }

  private pop(): Level {
    const level = this.stack.pop()!;
    this.total -= 1 + level.run;
    return level;
  }

  /** Closes the `<` levels on top: at a statement's end, a `<` was a comparison. */
  dropTypeArguments(): void {
    while (this.stack.length > 1 && this.top().open === '<') this.pop();
  }

  /** Closes `n` `<` levels at most (a `>`, `>>` or `>>>`); false when none is open on top. */
  closeTypeArguments(n: number): boolean {
    if (this.top().open !== '<') return false;
    for (let k = 0; k < n && this.top().open === '<'; k++) this.pop();
    return true;
  }

  /** The parsers are back at a list item (`,`): what this level ran up is done. */
  endItem(): void {
    this.total -= this.top().run;
    this.top().run = 0;
  }

  /** The parsers are back at a statement; `saved` keeps the run for an `else` after a `;`. */
  endStatement(keep = false): void {
    this.dropTypeArguments();
    const level = this.top();
    level.saved = keep ? level.run : 0;
    this.endItem();
  }

  /** After a `;`: the statement goes on (an `else`, a `do`'s `while`), with the run it had. */
  resume(): void {
    const level = this.top();
    level.run += level.saved;
    this.total += level.saved;
    level.saved = 0;
  }

  /** A closer closes the innermost level it may close and every level above it; one that closes nothing open is left alone. */
  close(opens: readonly string[]): Level | undefined {
    let k = this.stack.length - 1;
    while (k > 0 && !opens.includes(this.stack[k].open)) k--;
    if (k === 0) return undefined;
    let closed: Level;
    do closed = this.pop();
    while (this.stack.length > k);
    return closed;
  }
}
