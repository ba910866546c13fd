/**
 * docs/benchmarks.md as the benches write it: each bench replaces its own section, headed by a
 * line of its own, and leaves the rest of the file as it was.
 */

/**
 * A section that ends with this line replaces the one in the file only down to the same line: what
 * was written by hand below it (what a run's figures mean, what was tried) stays.
 */
export const KEPT_BELOW = '<!-- the bench writes what is above this line; what is below it is kept -->';

/** `markdown` with the section headed like section[0] replaced by `section` (or added at the end). */
export function withSection(markdown: string, section: readonly string[]): string {
  const start = markdown.indexOf(`\n${section[0]}\n`);
  const body = `${section.join('\n')}\n`;
  if (start < 0) return `${markdown.replace(/\n*$/, '\n\n')}${body}`;
  const next = markdown.indexOf('\n## ', start + 1);
  const kept = section[section.length - 1] === KEPT_BELOW ? markdown.indexOf(`\n${KEPT_BELOW}\n`, start) : -1;
  if (kept >= 0 && (next < 0 || kept < next)) return `${markdown.slice(0, start + 1)}${body}${markdown.slice(kept + KEPT_BELOW.length + 2)}`;
  return `${markdown.slice(0, start + 1)}${body}${next < 0 ? '' : markdown.slice(next)}`;
}
