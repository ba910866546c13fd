/** The operators Stryker's instrumenter lacks, in the order their mutants are kept when two give the same code. */
import { constants } from './constants';
import { floatReorder } from './floatReorder';
import { indices } from './indices';
import { inputsInPlace } from './inputsInPlace';
import { keptState } from './keptState';
import { keyedCache } from './keyedCache';
import { loopBound } from './loopBound';
import { missingReset } from './missingReset';
import { multiHeadParts } from './multiHeadParts';
import type { Operator } from './operator';
import { shiftRemoved } from './shiftRemoved';
import { swappedOperands } from './swappedOperands';
import { terms } from './terms';
import { wrongAxis } from './wrongAxis';
import { writtenElsewhere } from './writtenElsewhere';

/**
 * The issue-43 operators (semantic mistakes: state under a partial key, results written elsewhere,
 * operands exchanged, a shift removed, multi-head parts, and reorderings that stay correct) come
 * after the first ones, so that a mutant both make keeps the name and id it had.
 */
export const OPERATORS: readonly Operator[] = [
  wrongAxis, missingReset, keptState, inputsInPlace, loopBound, indices, terms, constants,
  keyedCache, writtenElsewhere, swappedOperands, shiftRemoved, multiHeadParts, floatReorder,
];
