/**
 * `--variants SECRET`: the hidden cases of one submission, drawn from the secret and its name and
 * built with the reference in the grading process (reference/fixtures/variants.ts implements it:
 * the student handout has no reference). They replace the stored hidden fixtures of that submission
 * only; its child gets their inputs, never what is expected.
 */
import type { GradedCase } from '../assignment/cases';
import type { LoadedFixture } from './fixtures';

export interface Variants {
  /** sha256 of the secret: what a batch records of it (secret.ts). */
  secretSha256: string;
  /** The hidden cases of `cases` drawn for the submission `name`, by fixture key. */
  draw(name: string, cases: readonly GradedCase[]): Map<string, LoadedFixture>;
}
