/**
 * Maps a line:column of transpiled student code back to the .ts source, so stack traces point at
 * the line the student wrote (transpiling drops interfaces and type-only imports, shifting lines).
 * Only the "mappings" field of a source map v3 is read.
 */
import { codePlace } from '../text/place';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Per generated line: segments of [generatedColumn, sourceLine, sourceColumn], 0-based. */
export type LineMap = number[][][];

function decodeVlq(segment: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = BASE64.indexOf(char);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    values.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return values;
}

export function decodeMappings(mappings: string): LineMap {
  let sourceLine = 0;
  let sourceColumn = 0;
  return mappings.split(';').map((line) => {
    let column = 0;
    return line
      .split(',')
      .filter(Boolean)
      .map((segment) => {
        const [dCol, , dLine = 0, dSrcCol = 0] = decodeVlq(segment);
        column += dCol;
        sourceLine += dLine;
        sourceColumn += dSrcCol;
        return [column, sourceLine, sourceColumn];
      });
  });
}

/** 1-based line and column in the source for a 1-based generated position, or undefined. */
export function originalPosition(map: LineMap, line: number, column: number): { line: number; column: number } | undefined {
  const segments = map[line - 1];
  if (!segments?.length) return undefined;
  let best = segments[0];
  for (const segment of segments) if (segment[0] <= column - 1) best = segment;
  return { line: best[1] + 1, column: best[2] + 1 };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Rewrites each position in the submission's own files, `<label>/<file>:line:column` as the child
 * names them, through that file's map, and names it as every message names a place
 * (lib/text/place.ts). Only the files that were loaded are matched, by their exact names, so a
 * folder or file name with any character in it is found, and nothing else is touched.
 */
export function mapStack(stack: string, label: string, maps: Record<string, LineMap>): string {
  const files = Object.keys(maps).sort((a, b) => b.length - a.length);
  if (files.length === 0) return stack;
  // Starts only where a frame's path can start (a line's start, a space, "("), so a longer name that ends in this one is not taken for it.
  const position = new RegExp(`(?<![^\\s(])${escapeRegExp(label)}/(${files.map(escapeRegExp).join('|')}):(\\d+):(\\d+)`, 'g');
  return stack.replace(position, (_whole, file: string, line: string, column: string) => {
    const source = originalPosition(maps[file], Number(line), Number(column));
    return codePlace(label, file, source?.line ?? Number(line), source?.column ?? Number(column));
  });
}
