/** The operators Stryker's instrumenter lacks, in the order their mutants are kept when two give the same code. */
import { constants } from './constants';
import { indices } from './indices';
import { inputsInPlace } from './inputsInPlace';
import { keptState } from './keptState';
import { loopBound } from './loopBound';
import { missingReset } from './missingReset';
import type { Operator } from './operator';
import { terms } from './terms';
import { wrongAxis } from './wrongAxis';

export const OPERATORS: readonly Operator[] = [wrongAxis, missingReset, keptState, inputsInPlace, loopBound, indices, terms, constants];
