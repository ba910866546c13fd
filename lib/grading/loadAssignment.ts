/**
 * Where an entry point gets the assignment it hands to the harness: the folder GRADER_ASSIGNMENT
 * names (one that holds tests/assignment.ts, exporting ASSIGNMENT), or the project's own. The
 * harness knows the layout, not the assignment: any folder laid out so grades the same way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths';
import type { Assignment } from './assignment';

/** The file an assignment's folder declares itself in. */
export const DECLARATION = path.join('tests', 'assignment.ts');

/** The assignment's folder: GRADER_ASSIGNMENT (relative to the working folder), or the project's root. */
export function assignmentRoot(): string {
  const named = process.env.GRADER_ASSIGNMENT;
  return named ? path.resolve(named) : PROJECT_ROOT;
}

/**
 * Loads the declaration of the assignment in `root`; one line says what is missing when it is not
 * one. A declaration that refuses the settings it was loaded with (a parts switch naming no part)
 * says why in one line and the process exits 2, as for a wrong command; `refused: 'throw'` throws
 * its error instead, for a caller that must still write a result (the Gradescope autograder).
 */
export function loadAssignment(root = assignmentRoot(), refused: 'exit' | 'throw' = 'exit'): Assignment {
  const file = path.join(root, DECLARATION);
  if (!fs.existsSync(file)) throw new Error(`${root}: no ${DECLARATION.split(path.sep).join('/')} declares an assignment there (GRADER_ASSIGNMENT names the folder)`);
  // Required, not imported: the entry points run under scripts/runTs.js, which compiles it (CommonJS).
  let declared: Assignment | undefined;
  try {
    declared = (require(file) as { ASSIGNMENT?: Assignment }).ASSIGNMENT;
  } catch (err) {
    if (refused === 'exit' && err instanceof Error && err.name === 'DeclarationError') {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  if (!declared) throw new Error(`${file}: exports no ASSIGNMENT`);
  return declared;
}
