/**
 * Heatmaps as inline SVG: one <rect class="cell"> per drawn value, query rows down, key columns
 * across, like the seaborn heatmaps of the course notebook (seed 001). Every cell carries its value
 * in a <title>, so hovering shows it; small matrices can also print it in the cell.
 */
import { formatNumber } from '../format';
import { escapeHtml } from './html';
import type { Matrix } from '../model/result';

export type { Matrix };

export type ColorScale =
  | { kind: 'sequential'; min: number; max: number }
  /** Symmetric around 0, for differences: blue below, red above. */
  | { kind: 'diverging'; limit: number }
  /** A mask: 1 = may attend, 0 = must not. */
  | { kind: 'binary' };

export interface HeatmapOptions {
  title: string;
  scale: ColorScale;
  /** At most this many rows and columns are drawn (the first ones); the note says what was cut. */
  cap?: number;
  /** About how wide the grid may be, in px. */
  size?: number;
  /** Print each value in its cell (for small matrices). */
  annotate?: boolean;
  rowLabel?: string;
  colLabel?: string;
  /** 1 where the query may attend the key: the other cells are masked, drawn grey when 0 and crossed by a diagonal always. */
  allowed?: Matrix;
}

export const DEFAULT_CAP = 32;
const NAN_COLOR = '#ff3eb5';

// matplotlib's viridis and RdBu (reversed) at evenly spaced stops.
const VIRIDIS = ['#440154', '#472d7b', '#3b528b', '#2c728e', '#21918c', '#28ae80', '#5ec962', '#addc30', '#fde725'];
const DIVERGING = ['#2166ac', '#67a9cf', '#d1e5f0', '#f7f7f7', '#fddbc7', '#ef8a62', '#b2182b'];
const BINARY = { allowed: '#2c728e', blocked: '#dcdfe5' };
const MASKED_LINE = '#8a8f99';

function mix(stops: readonly string[], t: number): string {
  const x = Math.min(1, Math.max(0, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const rgb = (hex: string, k: number) => parseInt(hex.slice(1 + 2 * k, 3 + 2 * k), 16);
  const channel = (k: number) => Math.round(rgb(stops[i], k) + (rgb(stops[i + 1], k) - rgb(stops[i], k)) * (x - i));
  return `#${[0, 1, 2].map((k) => channel(k).toString(16).padStart(2, '0')).join('')}`;
}

export function colorOf(value: number, scale: ColorScale): string {
  if (Number.isNaN(value)) return NAN_COLOR;
  if (scale.kind === 'binary') return value !== 0 ? BINARY.allowed : BINARY.blocked;
  if (scale.kind === 'diverging') return mix(DIVERGING, (value / scale.limit + 1) / 2);
  return mix(VIRIDIS, scale.max > scale.min ? (value - scale.min) / (scale.max - scale.min) : 0);
}

/** Dark text on light cells, light on dark: the perceived brightness of the fill decides. */
function textColor(fill: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(fill.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#111' : '#fff';
}

/** One colour range for matrices shown side by side, so equal colours mean equal values. */
export function sharedScale(...matrices: Matrix[]): ColorScale {
  const finite = matrices.flatMap((m) => Array.from(m.data).filter(Number.isFinite));
  const min = Math.min(0, ...finite);
  const max = Math.max(...finite, min + 1e-12);
  return { kind: 'sequential', min, max };
}

/**
 * a − b of two probability matrices, with a diverging scale that fits it. The scale never spans
 * less than ±0.01, so float32 rounding (1e-8) stays white instead of being stretched to full red.
 */
export function difference(a: Matrix, b: Matrix): { matrix: Matrix; scale: ColorScale; maxAbs: number } {
  const data = a.data.map((x, i) => x - b.data[i]);
  const maxAbs = Math.max(0, ...Array.from(data).filter(Number.isFinite).map(Math.abs));
  return { matrix: { rows: a.rows, cols: a.cols, data }, scale: { kind: 'diverging', limit: Math.max(maxAbs, 0.01) }, maxAbs };
}

const plural = (noun: string) => (/[^aeiou]y$/.test(noun) ? `${noun.slice(0, -1)}ies` : `${noun}s`);

/** A legend's end value in at most 7 characters. */
function shortNumber(x: number): string {
  return x !== 0 && Math.abs(x) < 1e-3 ? x.toExponential(1) : String(Number(x.toPrecision(3)));
}

const MARGIN = { left: 40, top: 30, bottom: 6 };
const LEGEND = { gap: 8, width: 10, labels: 42 };

function legend(scale: ColorScale, x: number, y: number, height: number): string {
  if (scale.kind === 'binary') {
    const swatch = (dy: number, fill: string, label: string) =>
      `<rect class="swatch" x="${x}" y="${y + dy}" width="10" height="10" fill="${fill}"/>` +
      `<text x="${x + 14}" y="${y + dy + 9}" font-size="10">${label}</text>`;
    return swatch(0, BINARY.allowed, '1 attend') + swatch(16, BINARY.blocked, '0 masked');
  }
  const [low, high] = scale.kind === 'diverging' ? [-scale.limit, scale.limit] : [scale.min, scale.max];
  const steps = 24;
  const parts: string[] = [];
  for (let s = 0; s < steps; s++) {
    const value = high - ((high - low) * (s + 0.5)) / steps;
    parts.push(`<rect class="swatch" x="${x}" y="${(y + (height * s) / steps).toFixed(1)}" width="${LEGEND.width}" ` +
      `height="${(height / steps + 0.5).toFixed(1)}" fill="${colorOf(value, scale)}"/>`);
  }
  const label = (value: number, dy: number) =>
    `<text x="${x + LEGEND.width + 4}" y="${y + dy}" font-size="10">${shortNumber(value)}</text>`;
  return parts.join('') + label(high, 8) + label(low, height);
}

export function heatmapSvg(m: Matrix, options: HeatmapOptions): string {
  const cap = options.cap ?? DEFAULT_CAP;
  const rows = Math.min(m.rows, cap);
  const cols = Math.min(m.cols, cap);
  const cell = Math.max(6, Math.min(40, Math.floor((options.size ?? 240) / Math.max(rows, cols, 1))));
  const gridW = cols * cell;
  const gridH = rows * cell;
  const labels = options.scale.kind === 'binary' ? 64 : LEGEND.labels;
  const width = MARGIN.left + gridW + LEGEND.gap + LEGEND.width + labels;
  const height = MARGIN.top + gridH + MARGIN.bottom;
  const [rowName, colName] = [options.rowLabel ?? 'query', options.colLabel ?? 'key'];
  const [rowLabel, colLabel] = [rowName, colName].map(escapeHtml);
  const step = cell >= 14 ? 1 : cell >= 6 ? 2 : 4;
  const parts: string[] = [];
  parts.push(`<text x="${MARGIN.left + gridW / 2}" y="10" font-size="11" text-anchor="middle">${colLabel} →</text>`);
  parts.push(`<text transform="translate(11 ${MARGIN.top + gridH / 2}) rotate(-90)" font-size="11" text-anchor="middle">` +
    `← ${rowLabel}</text>`);
  for (let j = 0; j < cols; j += step) {
    parts.push(`<text x="${MARGIN.left + (j + 0.5) * cell}" y="${MARGIN.top - 5}" font-size="9" text-anchor="middle">${j}</text>`);
  }
  for (let i = 0; i < rows; i += step) {
    parts.push(`<text x="${MARGIN.left - 4}" y="${MARGIN.top + (i + 0.5) * cell + 3}" font-size="9" text-anchor="end">${i}</text>`);
  }
  let nans = 0;
  let masked = 0;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const value = m.data[i * m.cols + j];
      if (Number.isNaN(value)) nans++;
      // A masked 0 is not a tiny probability: it gets its own colour, and every masked cell a diagonal.
      const isMasked = options.allowed !== undefined && options.allowed.data[i * options.allowed.cols + j] === 0;
      if (isMasked) masked++;
      const fill = isMasked && value === 0 ? BINARY.blocked : colorOf(value, options.scale);
      const [x, y] = [MARGIN.left + j * cell, MARGIN.top + i * cell];
      parts.push(`<rect class="cell${isMasked ? ' masked' : ''}" x="${x}" y="${y}" width="${cell}" height="${cell}" fill="${fill}">` +
        `<title>${rowLabel} ${i}, ${colLabel} ${j}${isMasked ? ' (masked)' : ''}: ${escapeHtml(formatNumber(value))}</title></rect>`);
      if (isMasked) {
        parts.push(`<path d="M${x} ${y + cell}L${x + cell} ${y}" stroke="${MASKED_LINE}" stroke-width="1" pointer-events="none"/>`);
      }
      if (options.annotate) {
        const text = options.scale.kind === 'binary' ? String(value) : Number.isNaN(value) ? 'NaN' : value.toFixed(2);
        parts.push(`<text x="${x + cell / 2}" y="${y + cell / 2 + 3.5}" font-size="${Math.min(11, Math.floor(cell * 0.3))}" ` +
          `text-anchor="middle" style="fill:${textColor(fill)}" pointer-events="none">${text}</text>`);
      }
    }
  }
  parts.push(legend(options.scale, MARGIN.left + gridW + LEGEND.gap, MARGIN.top, gridH));
  const notes: string[] = [];
  if (rows < m.rows || cols < m.cols) notes.push(`first ${rows} of ${m.rows} ${plural(rowName)}, ${cols} of ${m.cols} ${plural(colName)}`);
  if (nans > 0) notes.push(`${nans} NaN (pink)`);
  if (masked > 0) notes.push(`${masked} masked (crossed; grey when 0)`);
  const title = escapeHtml(options.title);
  return [
    '<figure class="heatmap-figure">',
    `<figcaption>${title}</figcaption>`,
    `<svg class="heatmap" data-rows="${rows}" data-cols="${cols}" width="${width}" height="${height}" ` +
      `viewBox="0 0 ${width} ${height}" role="img" aria-label="${title}" xmlns="http://www.w3.org/2000/svg">`,
    parts.join('\n'),
    '</svg>',
    notes.length ? `<div class="note">${escapeHtml(notes.join('; '))}</div>` : '',
    '</figure>',
  ].join('\n');
}
