/** Softmax over the rows of a flat [rows, cols] array, in place, with a row of −∞ left as zeros. */

// audit: normalise
export function softmaxRows(data: Float64Array, rows: number, cols: number): Float64Array {
  for (let r = 0; r < rows; r++) {
    const row = data.subarray(r * cols, (r + 1) * cols);
    // audit: max
    let max = -Infinity;
    for (const v of row) if (v > max) max = v;
    // audit: empty
    if (max === -Infinity) {
      row.fill(0);
      continue;
    }
    // audit: exp
    for (let j = 0; j < cols; j++) row[j] = Math.exp(row[j] - max);
    // audit: sum
    let sum = 0;
    for (const v of row) sum += v;
    // audit: normalise
    for (let j = 0; j < cols; j++) row[j] /= sum;
  }
  return data;
}
