/**
 * Rewrites the array methods a checker leans on at import (every / some / map / reduce / filter /
 * findIndex / includes / slice on arrays and on every typed array, Array.isArray, Array.from), so
 * that shape and value checks run in this process would agree with anything, and answers zeros
 * everywhere. The checks run in the grader's process: every test must fail and earn nothing.
 */
import { wrongAnswers } from './kit';

const answers = wrongAnswers(0);

const typedArray = Object.getPrototypeOf(Float32Array.prototype) as Record<string, unknown>;
for (const proto of [Array.prototype as unknown as Record<string, unknown>, typedArray, Float64Array.prototype as unknown as Record<string, unknown>]) {
  proto.every = () => true;
  proto.some = () => false;
  proto.map = function map(this: unknown) {
    return this;
  };
  proto.reduce = (_f: unknown, initial: unknown) => initial;
  proto.filter = function filter(this: unknown) {
    return this;
  };
  proto.findIndex = () => -1;
  proto.includes = () => true;
  proto.slice = function slice(this: unknown) {
    return this;
  };
}
Array.isArray = ((_value: unknown) => true) as typeof Array.isArray;
Array.from = ((value: unknown) => value) as typeof Array.from;

export const { softmax, scaledDotProductAttention, causalMask, multiHeadSelfAttention } = answers;
