/**
 * The graded suite: one vitest test per visible case of tests/cases.ts, named as in the table, in
 * the table's order (the grader calls them in the same order), each run by the grader's own engine
 * with the submission in this process (lib/suite/gradedSuite.ts). One spec file on purpose: vitest
 * loads every spec file even when `-t` skips its tests, and each file costs a worker start (the
 * student loop would double).
 */
import { test } from 'vitest';
import { gradedSuite } from '../lib/suite/gradedSuite';
import { ASSIGNMENT } from './assignment';

const suite = gradedSuite(ASSIGNMENT);
for (const graded of suite.cases) test(graded.name, ({ task }) => suite.run(graded, task));
