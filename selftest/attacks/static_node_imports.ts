/**
 * Imports node:fs and child_process statically to write a file and run a command. The grader must
 * refuse the submission before running any of it: every test refused, no points.
 */
import { execSync } from 'child_process';
import fs from 'node:fs';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(): never {
  fs.writeFileSync('pwned.txt', execSync('echo pwned'));
  throw new Error('wrote pwned.txt');
}
