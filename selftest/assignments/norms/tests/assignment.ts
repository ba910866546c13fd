/**
 * The norms assignment as the harness is handed it (lib/grading/assignment.ts): its functions, its
 * case table and its folder. No diagnosis, heatmaps or carry-forward: a failure gets what its output
 * shows, in the harness's generic words.
 */
import path from 'node:path';
import { FUNCTIONS } from '../adapters/functions';
import type { Assignment } from '../lib/grading/assignment';
import { GRADED_CASES } from './cases';

export const ASSIGNMENT: Assignment = {
  name: 'norms',
  studentCommands: [
    'npm ci                 # set up (Node 22, 24 or 26: the LTS lines)',
    'npm test -- -t top_k   # the top-k tests against student/index.ts',
    'npm run grade          # point totals of the visible tests',
  ],
  page: { title: 'Norms assignment' },
  root: path.resolve(__dirname, '..'),
  functions: FUNCTIONS,
  cases: GRADED_CASES,
};
