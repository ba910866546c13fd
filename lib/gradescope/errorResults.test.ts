import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { autograderErrorResults, boundedDetails, DETAILS_LIMIT } from './errorResults';

describe('boundedDetails', () => {
  it('text within the limit: as it is', () => {
    fc.assert(fc.property(fc.string({ maxLength: DETAILS_LIMIT, size: 'max' }), (text) => boundedDetails(text) === text));
  });

  it('longer text: within the limit, its start and its end kept, saying how much was left out', () => {
    fc.assert(
      fc.property(fc.integer({ min: DETAILS_LIMIT + 1, max: 20 * DETAILS_LIMIT }), fc.string({ minLength: 1, maxLength: 40 }), (length, start) => {
        const end = `${start}:end`;
        const text = `${start}${'.'.repeat(length)}${end}`;
        const bounded = boundedDetails(text);
        const left = Number(/\[… (\d+) characters left out …\]/.exec(bounded)?.[1]);
        return bounded.length <= DETAILS_LIMIT && bounded.startsWith(start) && bounded.endsWith(end) && bounded.length - left < text.length;
      }),
    );
  });

  it('the instructors\' detail of an "Autograder error" is bounded', () => {
    const results = autograderErrorResults(`Error: the cause\n${'    at frame\n'.repeat(5000)}`, 14.5);
    expect(results.tests[1].output.length).toBeLessThanOrEqual(DETAILS_LIMIT);
    expect(results.tests[1].output).toMatch(/^Error: the cause\n/);
  });
});
