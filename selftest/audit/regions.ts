/**
 * Which part of attention each line of an audited solution computes, from its `// audit: <part>`
 * comments: a comment alone on its line names the part of the lines below it, up to the next
 * such comment; one at the end of a line of code names that line's part only. A line that does two
 * things names both (`// audit: mask, scale`). A mutant's truth is the parts of the lines it
 * changes (selftest/catalogue/correct/tensor_methods.ts shows the style).
 */

/** Every part a solution may name: attention's steps, and those of the other graded functions. */
export const PARTS = [
  // scaledDotProductAttention
  'shape', 'batch', 'scores', 'scale', 'mask', 'max', 'exp', 'sum', 'normalise', 'empty', 'values', 'output',
  // softmax's own, causalMask
  'axis', 'causal',
  // multiHeadSelfAttention
  'mhsa_shape', 'projection', 'split', 'heads', 'merge', 'oproj',
] as const;
export type Part = (typeof PARTS)[number];

const MARKER = /\/\/ audit: (\w+(?:, \w+)*)\s*$/;

/** The parts of each line (0-based); none before the first marker. */
export function linesParts(source: string, file = 'solution'): Part[][] {
  let current: Part[] = [];
  return source.split('\n').map((line, at) => {
    const found = MARKER.exec(line);
    if (!found) return current;
    const parts = found[1].split(', ') as Part[];
    const unknown = parts.find((p) => !PARTS.includes(p));
    if (unknown) throw new Error(`${file}:${at + 1}: unknown audit part '${unknown}' (one of ${PARTS.join(', ')})`);
    if (line.trim().startsWith('//')) {
      current = parts;
      return [];
    }
    return parts;
  });
}

/** The parts of lines `from`..`to` (1-based, inclusive). */
export function partsOf(parts: readonly Part[][], from: number, to: number): Part[] {
  const found = new Set<Part>();
  for (let line = from; line <= to; line++) for (const part of parts[line - 1] ?? []) found.add(part);
  return [...found];
}
