/**
 * `npm run explore`'s page: the seed notebook's plots redrawn as inline SVG from the reference's
 * numbers (experiments.ts). Self-contained like the grading reports.
 */
import { formatNumber } from '../../lib/format';
import { linePlotSvg, type Series } from '../../lib/report/charts';
import { heatmapSvg } from '../../lib/report/heatmap';
import { escapeHtml, htmlPage } from '../../lib/report/html';
import { MASK_SEQ, type MaskCase, type ScalingPoint } from './experiments';

const series = (points: readonly ScalingPoint[], pick: (p: ScalingPoint) => number, label: string, marker: Series['marker']): Series =>
  ({ label, marker, points: points.map((p) => ({ x: p.dK, y: pick(p) })) });

function scalingSection(points: readonly ScalingPoint[]): string {
  const queries = 10;
  const maxPlot = linePlotSvg(
    [series(points, (p) => p.maxScaled, 'with 1/√d_k', 'circle'), series(points, (p) => p.maxUnscaled, 'without scaling', 'square')],
    { title: 'Softmax saturation vs d_k', xLabel: 'd_k (log scale)', yLabel: 'max attention weight', logX: true,
      guides: [{ y: 1, label: 'saturation (1.0)' }], yMin: 0 },
  );
  const entropyPlot = linePlotSvg(
    [series(points, (p) => p.entropyScaled, 'with 1/√d_k', 'circle'), series(points, (p) => p.entropyUnscaled, 'without scaling', 'square')],
    { title: 'Attention entropy vs d_k', xLabel: 'd_k (log scale)', yLabel: 'mean entropy (nats)', logX: true,
      guides: [{ y: Math.log(queries), label: `uniform over ${queries} keys` }], yMin: 0 },
  );
  const rows = points.map((p) => `<tr><td class="num">${p.dK}</td>` +
    [p.maxScaled, p.maxUnscaled, p.entropyScaled, p.entropyUnscaled].map((x) => `<td class="num">${formatNumber(x)}</td>`).join('') + '</tr>');
  return [
    '<h2>Why divide the scores by √d_k</h2>',
    '<p>Q and K hold independent N(0, 1) entries, [1, 10, d_k] as in the notebook’s <code>experiment_scaling_factor</code>. ' +
      'Each score q·k then has variance d_k: without scaling the scores grow with d_k, the softmax becomes nearly one-hot ' +
      '(max weight → 1, entropy → 0) and its gradients vanish. Dividing by √d_k brings the variance back to 1, and the ' +
      'weights stay spread out at every d_k.</p>',
    `<div class="panels">${maxPlot}\n${entropyPlot}</div>`,
    '<table class="numbers"><thead><tr><th class="num">d_k</th><th class="num">max, scaled</th><th class="num">max, unscaled</th>' +
      '<th class="num">entropy, scaled</th><th class="num">entropy, unscaled</th></tr></thead>',
    `<tbody>${rows.join('\n')}</tbody></table>`,
  ].join('\n');
}

function maskSection(cases: readonly MaskCase[]): string {
  const columns = cases.map((c) => [
    '<div class="mask-case">',
    `<h3>${escapeHtml(c.title)}</h3>`,
    `<p class="note">${escapeHtml(c.note)}</p>`,
    heatmapSvg(c.mask, { title: 'mask', scale: { kind: 'binary' }, annotate: true, size: 240 }),
    heatmapSvg(c.weights, { title: 'attention weights', scale: { kind: 'sequential', min: 0, max: 1 }, annotate: true, size: 240 }),
    '</div>',
  ].join('\n'));
  return [
    '<h2>Masks</h2>',
    `<p>The same Q and K ([1, ${MASK_SEQ}, 8]) under three masks, as the notebook’s “Test Causal Masking”. A mask entry 1 lets ` +
      'the query attend to the key; 0 fills the score with −∞, so its weight is exactly 0 and the allowed weights of each ' +
      'row still sum to 1.</p>',
    `<div class="panels">${columns.join('\n')}</div>`,
  ].join('\n');
}

export function explorePage(scaling: readonly ScalingPoint[], masks: readonly MaskCase[]): string {
  const body = [
    '<h1>Scaled dot-product attention: the course experiments</h1>',
    '<p class="muted">softmax(Q Kᵀ / √d_k) V, computed with the reference solution (reference/index.ts) on seeded ' +
      'Gaussian inputs; regenerate with <code>npm run explore</code>. Hover a point or a cell for its value.</p>',
    scalingSection(scaling),
    maskSection(masks),
  ];
  return htmlPage('Scaled dot-product attention: the course experiments', body.join('\n'));
}
