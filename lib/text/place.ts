/**
 * The one way every message names a place in a submission's code, whoever finds it (the type
 * check, a syntax error, a refused import, a stack trace mapped back to the source):
 * `student/index.ts:40:26`, the submission's folder (its own name in a batch), the file inside it,
 * then the line and the column, both counted from 1, as TypeScript's and vitest's terminals and
 * editors write them. A name a submission chose is shown as the intake shows names (showName:
 * quoted and escaped when it holds anything unusual), so every message names it alike.
 */
import { showName } from './sanitise';

/** A file of a submission, `student/helpers.ts`: `folder` is how the submission is named (Submission.label). */
export function codeFile(folder: string, file: string): string {
  return showName(`${folder}/${file}`);
}

/** A place in a file of a submission, `student/index.ts:40:26`; line and column from 1. */
export function codePlace(folder: string, file: string, line: number, column: number): string {
  return `${codeFile(folder, file)}:${line}:${column}`;
}

/** 1-based line and column of a UTF-16 offset, counted as TypeScript counts them (\n, \r\n, \r, U+2028/9 end a line). */
export function lineAndColumn(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 13 && source.charCodeAt(i + 1) === 10) continue;
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: Math.min(offset, source.length) - start + 1 };
}

/** The first place a stack's frames name, as they name it (`student/index.ts:40:26`); undefined for a stack that names none. */
export function firstFramePlace(stack: string): string | undefined {
  for (const line of stack.split('\n')) {
    const frame = /^\s+at (?:.*\((.+:\d+:\d+)\)|(.+:\d+:\d+))$/.exec(line);
    if (frame) return frame[1] ?? frame[2];
  }
  return undefined;
}
