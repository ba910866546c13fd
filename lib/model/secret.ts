/**
 * What a batch records of the --variants secret (lib/batch/options.ts): its hash, never the secret
 * itself, so a rerun or a merge can tell whether two runs drew the same hidden cases.
 */
import { createHash } from 'node:crypto';

export const secretHash = (secret: string): string => createHash('sha256').update(`variants\0${secret}`).digest('hex');
