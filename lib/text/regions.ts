/**
 * Regions of a text that belong to an assignment's optional parts (lib/grading/assignment.ts
 * AssignmentParts), for the handout: the lines between an opening marker that names parts and the
 * closing marker are kept when one of those parts is graded and dropped otherwise; the marker lines
 * themselves are always dropped, so the handout reads as if they were never there. In code,
 * `// part: weights, single_head` … `// end part`; in Markdown, `<!-- part: weights -->` …
 * `<!-- end part -->`. Regions do not nest.
 */

const OPEN = /^\s*(?:\/\/|<!--)\s*part:\s*([\w\s,]*?)\s*(?:-->)?\s*$/;
const CLOSE = /^\s*(?:\/\/|<!--)\s*end part\s*(?:-->)?\s*$/;

/** A marker that does not pair, nest or name a declared part: the message names its line. */
export class RegionError extends Error {
  override name = 'RegionError';
}

/** Whether `text` holds any part marker. */
export const hasRegions = (text: string): boolean => text.split('\n').some((line) => OPEN.test(line) || CLOSE.test(line));

/** `text` with each region kept or dropped by whether one of its parts is in `on`; `known`: every declared part's id. */
export function keepRegions(text: string, on: readonly string[], known: readonly string[]): string {
  const kept: string[] = [];
  let open: { line: number; keep: boolean } | undefined;
  for (const [i, line] of text.split('\n').entries()) {
    const opening = OPEN.exec(line);
    if (opening) {
      if (open) throw new RegionError(`line ${i + 1}: a part region opens inside the one opened on line ${open.line} (regions do not nest)`);
      const ids = opening[1].split(',').map((id) => id.trim()).filter(Boolean);
      const unknown = ids.filter((id) => !known.includes(id));
      if (ids.length === 0 || unknown.length > 0) {
        throw new RegionError(`line ${i + 1}: ${ids.length === 0 ? 'a part region names no part' : `no part named ${unknown.join(', ')}`} (the parts are ${known.join(', ')})`);
      }
      open = { line: i + 1, keep: ids.some((id) => on.includes(id)) };
    } else if (CLOSE.test(line)) {
      if (!open) throw new RegionError(`line ${i + 1}: a part region closes that no line opened`);
      open = undefined;
    } else if (!open || open.keep) kept.push(line);
  }
  if (open) throw new RegionError(`line ${open.line}: a part region opens and never closes (\`// end part\`, or \`<!-- end part -->\` in Markdown)`);
  return kept.join('\n');
}
