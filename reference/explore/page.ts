/**
 * `npm run explore`'s page: the seed notebook's plots redrawn as inline SVG from the reference's
 * numbers (experiments.ts). Self-contained like the grading reports.
 */
import { formatNumber } from '../../lib/format';
import { linePlotSvg, type Series } from '../../lib/report/charts';
import { heatmapSvg } from '../../lib/report/heatmap';
import { escapeHtml, htmlPage } from '../../lib/report/html';
import { MASK_SEQ, type MaskCase, type ScalingPoint } from './experiments';
import { VANISHING, type GradientPoint, type GradientStats } from './gradients';

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

/** The four curves of a gradient plot: dQ and dK, with and without the scale. */
function gradientSeries(points: readonly GradientPoint[], pick: (s: GradientStats) => number): Series[] {
  const curve = (label: string, marker: Series['marker'], of: (p: GradientPoint) => GradientStats) =>
    ({ label, marker, points: points.map((p) => ({ x: p.dK, y: pick(of(p)) })) });
  return [
    curve('dQ, with 1/√d_k', 'circle', (p) => p.scaled.dQ), curve('dK, with 1/√d_k', 'circle', (p) => p.scaled.dK),
    curve('dQ, without scaling', 'square', (p) => p.unscaled.dQ), curve('dK, without scaling', 'square', (p) => p.unscaled.dK),
  ];
}

function gradientSection(points: readonly GradientPoint[]): string {
  const medianPlot = linePlotSvg(gradientSeries(points, (s) => Math.log10(s.median)), {
    title: 'Gradient reaching Q and K vs d_k', xLabel: 'd_k (log scale)', yLabel: 'log₁₀ median |gradient|', logX: true,
    guides: [{ y: Math.log10(VANISHING), label: `${formatNumber(VANISHING)}: vanished` }],
  });
  const vanishedPlot = linePlotSvg(gradientSeries(points, (s) => s.vanished), {
    title: `Gradient entries below ${formatNumber(VANISHING)} vs d_k`, xLabel: 'd_k (log scale)', yLabel: 'share of entries (%)', logX: true, yMin: 0,
  });
  const cells = (s: GradientStats) => `<td class="num">${formatNumber(s.median)}</td><td class="num">${formatNumber(Number(s.vanished.toFixed(1)))}</td>`;
  const rows = points.map((p) => `<tr><td class="num">${p.dK}</td>${cells(p.scaled.dQ)}${cells(p.scaled.dK)}${cells(p.unscaled.dQ)}${cells(p.unscaled.dK)}</tr>`);
  const head = ['dQ', 'dK'].flatMap((g) => [`${g} median, scaled`, `${g} % < 1e-8, scaled`]);
  const headUnscaled = ['dQ', 'dK'].flatMap((g) => [`${g} median, unscaled`, `${g} % < 1e-8, unscaled`]);
  return [
    '<h2>Gradient flow</h2>',
    '<p>Problem 3’s check: are the gradients reaching Q and K vanishing (magnitude below 1e-8) at d_k = 64, 256, 512, ' +
      '1024? Q, K, V and the upstream gradient dOut hold independent N(0, 1) entries, 16 draws of [10, d_k]; the gradients ' +
      'are the reference’s backward pass, and without scaling those of softmax(Q Kᵀ) V. With the scale the median ' +
      'gradient stays the same at every d_k. Without it the softmax saturates as the scores grow: ever more queries put ' +
      'all their weight on one key, their gradient through the softmax is zero to within rounding, and the median falls ' +
      'by orders of magnitude.</p>',
    `<div class="panels">${medianPlot}\n${vanishedPlot}</div>`,
    `<table class="numbers"><thead><tr><th class="num">d_k</th>${[...head, ...headUnscaled].map((h) => `<th class="num">${h}</th>`).join('')}</tr></thead>`,
    `<tbody>${rows.join('\n')}</tbody></table>`,
  ].join('\n');
}

export function explorePage(scaling: readonly ScalingPoint[], masks: readonly MaskCase[], gradients: readonly GradientPoint[]): string {
  const body = [
    '<h1>Scaled dot-product attention: the course experiments</h1>',
    '<p class="muted">softmax(Q Kᵀ / √d_k) V, computed with the reference solution (reference/index.ts) on seeded ' +
      'Gaussian inputs; regenerate with <code>npm run explore</code>. Hover a point or a cell for its value.</p>',
    scalingSection(scaling),
    gradientSection(gradients),
    maskSection(masks),
  ];
  return htmlPage('Scaled dot-product attention: the course experiments', body.join('\n'));
}
