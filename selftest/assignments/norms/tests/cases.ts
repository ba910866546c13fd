/**
 * The norms assignment's table of graded cases: the vitest suite and the grader both read it, so a
 * case's points are decided here, in its line. Names carry the function's id: `-t top_k` selects
 * the top-k tests.
 */
import type { GradedCase } from '../lib/assignment/cases';
import type { Tolerance } from '../lib/compare';

/** The CS336 tolerance, elementwise |actual − expected| ≤ atol + rtol·|expected|. */
const TOLERANCE: Tolerance = { atol: 1e-6, rtol: 1e-4 };
/** Top-k's values are entries of x, copied: any correct answer has them exactly (its indices are compared exactly by kind). */
const COPIED: Tolerance = { atol: 0, rtol: 0 };

type Row = Pick<GradedCase, 'name' | 'fn' | 'points' | 'fixture' | 'what'>;
const visible = (row: Row): GradedCase => ({ tolerance: TOLERANCE, checks: [], ...row, hidden: false });
const hidden = (row: Row): GradedCase => ({ tolerance: TOLERANCE, checks: [], ...row, hidden: true });
const topK = (row: Row): Row & Pick<GradedCase, 'partTolerance'> => ({ ...row, partTolerance: { values: COPIED } });

export const GRADED_CASES: readonly GradedCase[] = [
  visible({ name: 'test_layer_norm', fn: 'layer_norm', points: 1, fixture: 'layer_norm_2d',
    what: 'x [4, 8] normalised over its last dim, gamma and beta [8], eps 1e-5' }),
  visible({ name: 'test_layer_norm_batch_dims', fn: 'layer_norm', points: 1, fixture: 'layer_norm_batch_dims',
    what: 'x [2, 3, 16]: two batch dims before the normalised one' }),
  visible({ name: 'test_layer_norm_eps', fn: 'layer_norm', points: 1, fixture: 'layer_norm_eps',
    what: 'rows of variance about 1e-4 with eps 1e-3: eps goes inside the square root, and here it matters' }),
  visible(topK({ name: 'test_top_k', fn: 'top_k', points: 1, fixture: 'top_k_2d',
    what: 'the 3 largest of each row of x [5, 10], largest first, with their indices' })),
  visible(topK({ name: 'test_top_k_ties', fn: 'top_k', points: 1, fixture: 'top_k_ties',
    what: 'rows of small whole numbers, so with ties: of equal entries the lower index comes first' })),
  visible(topK({ name: 'test_top_k_batch_dims_all', fn: 'top_k', points: 1, fixture: 'top_k_batch_dims_all',
    what: 'x [2, 3, 7] with k 7: every entry of a row, sorted, under two batch dims' })),

  hidden({ name: 'test_layer_norm_hidden', fn: 'layer_norm', points: 0.5, fixture: 'hidden/layer_norm',
    what: 'x [3, 5, 6] with gamma and beta drawn, eps 1e-5' }),
  hidden(topK({ name: 'test_top_k_hidden', fn: 'top_k', points: 0.5, fixture: 'hidden/top_k',
    what: 'x [4, 9] of small whole numbers, k 4: ties again' })),
];
