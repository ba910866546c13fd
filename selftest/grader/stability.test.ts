/**
 * Stability tricks other than subtracting each row's own max: each loses the rows-apart tests of
 * its function (visible and hidden) and nothing else, and no diagnosis names a cause for it (none
 * in the catalogue is its cause: a named one would be wrong; what the probes saw may be said). The whole-tensor max, which once got
 * full marks, is in the catalogue (softmax_global_max, attention_global_max) with its own words.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isObservation } from '../../tests/diagnosis/catalogue';
import { loadCaseFixtures } from '../../lib/grading/grade';
import { GRADED_CASES } from '../../tests/cases';
import { grade, gradeOptions } from './harness';
import { materialize, tempDir } from './materialize';
import { ASSIGNMENT } from '../../tests/assignment';

const work = tempDir('stability');
const everyCase = { cases: GRADED_CASES, fixtures: loadCaseFixtures(ASSIGNMENT, GRADED_CASES) };

const TRICKS: Record<string, string[]> = {
  stability_row_mean: ['test_softmax_stable_rows_apart', 'test_softmax_rows_apart_hidden'],
  stability_first_element: ['test_softmax_stable_rows_apart', 'test_softmax_rows_apart_hidden'],
  stability_clamp_scores: [
    'test_scaled_dot_product_attention_large_scores', 'test_scaled_dot_product_attention_rows_apart', 'test_scaled_dot_product_attention_rows_apart_hidden',
  ],
};

describe('stability tricks fail where they should, with no wrong cause', () => {
  for (const [name, failing] of Object.entries(TRICKS)) {
    it(name, async () => {
      const dir = materialize(path.join(__dirname, '..', 'catalogue', 'bugs', `${name}.ts`), work);
      const result = await grade(dir, name, { ...gradeOptions(), ...everyCase });
      expect(result.cases.filter((c) => c.status !== 'passed').map((c) => c.name).sort()).toEqual([...failing].sort());
      // What the probes saw may be said (an observation names no cause); a cause may not.
      const named = result.cases.filter((c) => c.status !== 'passed' && c.diagnosis && !isObservation(c.diagnosis.mistake));
      expect(named.map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
    });
  }
});
