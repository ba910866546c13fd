/**
 * causalMask throws, and prints, text made to take over whatever shows it: ANSI escapes that clear
 * the screen and move the cursor, a carriage return that overwrites the line, a bell, bidi
 * controls, and GitHub workflow commands (::error, ::add-mask, ##[group]) on lines of their own.
 * The grader's terminal lines, logs, CSV and workflow output must show none of them raw.
 */
export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

const HOSTILE = '\u001b[2J\u001b[H\rYOU GOT 100%\u0007\u202e\n::error file=index.ts::grader compromised\n::add-mask::x\n##[group]hidden';

export function causalMask(): never {
  console.log(HOSTILE);
  throw new Error(HOSTILE);
}
