/**
 * Points as a course's gradebook shows them (grades.csv, grades-long.csv, canvas.csv, report.html,
 * a batch's summary): to POINT_DECIMALS places, whatever the case table's points are (a hidden test
 * worth 1/64 is not 0.015625 there). Results keep their exact points; only what is shown is
 * rounded, in one way:
 *
 * - a total is the exact sum of the tests' points, rounded;
 * - each test's points are rounded so that a row's cells add up to that total (largest
 *   remainders: the cells start rounded down, and the units left go to the cells that lost the
 *   most, the table's order breaking ties), so at two decimals a 1/64-point test shows 0.02 or
 *   0.01 and sixteen of them passed show 0.25 together;
 * - the final score after a late penalty is the exact final score, rounded, and the penalty shown
 *   is the points shown less it: a row's cells less its penalty are its final score, always.
 */

/**
 * Canvas shows and exports scores to two decimals (its gradebook importer compares them at that
 * precision), so a gradebook to two places loses nothing Canvas would keep.
 */
export const POINT_DECIMALS = 2;

/** x in units of 10^−decimals, rounded half away from 0; float noise (1e−6 of a unit) is not a half. */
export function toUnits(x: number, decimals: number = POINT_DECIMALS): number {
  const scaled = Number((x * 10 ** decimals).toFixed(6));
  return Math.sign(scaled) * Math.round(Math.abs(scaled));
}

/** Units back to points, as a number that prints without float noise (1285 → 12.85). */
export const fromUnits = (units: number, decimals: number = POINT_DECIMALS): number => units / 10 ** decimals;

/**
 * Each value's shown units, adding up to `target` (by default the values' sum, rounded): each
 * value rounded down, then one more unit to each of the values with the largest remainders, as
 * many as the target needs. Undefined (a test never graded) stays undefined.
 */
export function apportionUnits(values: readonly (number | undefined)[], target?: number, decimals: number = POINT_DECIMALS): (number | undefined)[] {
  const scaled = values.map((v) => (v === undefined ? undefined : Number((v * 10 ** decimals).toFixed(6))));
  const shown = scaled.map((s) => (s === undefined ? undefined : Math.floor(s)));
  const goal = target ?? toUnits(values.reduce<number>((sum, v) => sum + (v ?? 0), 0), decimals);
  let left = goal - shown.reduce<number>((sum, f) => sum + (f ?? 0), 0);
  // Largest remainder first, the table's order between equals. The target is the exact sum rounded,
  // so the units left are at most the cells with a remainder; the rest guards against float noise.
  const order = scaled.flatMap((s, i) => (s === undefined ? [] : [{ i, remainder: s - shown[i]! }]))
    .sort((a, b) => b.remainder - a.remainder || a.i - b.i);
  for (let k = 0; left !== 0 && order.length > 0; k++) {
    const { i } = left > 0 ? order[k % order.length] : order[order.length - 1 - (k % order.length)];
    shown[i]! += Math.sign(left);
    left -= Math.sign(left);
  }
  return shown;
}

/** A row as shown, in units: its cells, the points they add up to, the penalty, and the final score. */
export interface ShownScore {
  cells: (number | undefined)[];
  points: number;
  penalty: number;
  total: number;
}

/**
 * A row as shown: its cells (`points`, in the case table's order; undefined where a test was never
 * graded) adding up to its points before any penalty (`before`, exact), its final score (`final`,
 * exact: `before` less a late penalty) and the penalty, the difference of the two as shown.
 */
export function shownScore(points: readonly (number | undefined)[], before: number, final: number, decimals: number = POINT_DECIMALS): ShownScore {
  const sum = toUnits(before, decimals);
  const total = toUnits(final, decimals);
  return { cells: apportionUnits(points, sum, decimals), points: sum, penalty: sum - total, total };
}
