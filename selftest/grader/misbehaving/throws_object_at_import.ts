/** Throws a plain object while being loaded: every test fails, in the same words on both paths. */
export * from './base';

throw { reason: 'not an Error' };
