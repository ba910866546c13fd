/**
 * The reports' other charts as inline SVG: a histogram of scores, horizontal bars of pass rates,
 * and line plots (the explore page's saturation curves). Bars are <rect class="bar">, plotted
 * points <circle|rect class="point">, so a test can count what was drawn.
 */
import { formatNumber } from '../format';
import { escapeHtml } from './html';

const AXIS = '#8a93a3';
const GRID = '#e6e9ef';
export const SERIES_COLORS = ['#2c728e', '#e8590c', '#5ec962', '#8e44ad'];

const svgOpen = (cls: string, width: number, height: number, label: string) =>
  `<svg class="${cls}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" ` +
  `aria-label="${escapeHtml(label)}" xmlns="http://www.w3.org/2000/svg">`;

const text = (x: number, y: number, content: string, attrs = '') =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" font-size="11" ${attrs}>${escapeHtml(content)}</text>`;

export interface Bin {
  label: string;
  count: number;
}

/** Vertical bars, one per bin, each with its count above it. */
export function histogramSvg(bins: readonly Bin[], options: { title: string; xLabel: string; yLabel: string }): string {
  const m = { left: 44, right: 12, top: 16, bottom: 40 };
  const barW = Math.max(14, Math.min(48, Math.floor(640 / Math.max(1, bins.length))));
  const plotW = bins.length * barW;
  const plotH = 180;
  const width = m.left + plotW + m.right;
  const height = m.top + plotH + m.bottom;
  // Counts are whole: whole steps, and the axis ends on one.
  const step = Math.max(1, Math.ceil(Math.max(...bins.map((b) => b.count), 1) / 4));
  const top = step * Math.ceil(Math.max(1, ...bins.map((b) => b.count)) / step);
  const y = (count: number) => m.top + plotH - (plotH * count) / top;
  const parts = [svgOpen('histogram', width, height, options.title)];
  for (let tick = 0; tick <= top; tick += step) {
    parts.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${y(tick)}" y2="${y(tick)}" stroke="${GRID}"/>`,
      text(m.left - 6, y(tick) + 4, String(tick), 'text-anchor="end"'));
  }
  bins.forEach((bin, i) => {
    const x = m.left + i * barW;
    parts.push(`<rect class="bar" x="${x + 2}" y="${y(bin.count)}" width="${barW - 4}" height="${m.top + plotH - y(bin.count)}" ` +
      `fill="${SERIES_COLORS[0]}"><title>${escapeHtml(`${bin.label}: ${bin.count}`)}</title></rect>`);
    if (bin.count > 0) parts.push(text(x + barW / 2, y(bin.count) - 3, String(bin.count), 'text-anchor="middle"'));
    parts.push(text(x + barW / 2, m.top + plotH + 14, bin.label, 'text-anchor="middle" font-size="10"'));
  });
  parts.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${m.top + plotH}" y2="${m.top + plotH}" stroke="${AXIS}"/>`,
    text(m.left + plotW / 2, height - 6, options.xLabel, 'text-anchor="middle"'),
    text(12, m.top + plotH / 2, options.yLabel, `text-anchor="middle" transform="rotate(-90 12 ${m.top + plotH / 2})"`),
    '</svg>');
  return parts.join('\n');
}

export interface Rate {
  label: string;
  passed: number;
  total: number;
}

/** One horizontal bar per label: the share passed, with "k/n" beside it. */
export function rateBarsSvg(rates: readonly Rate[], options: { title: string }): string {
  const labelW = 8 + 7 * Math.max(10, ...rates.map((r) => r.label.length));
  const barMax = 320;
  const rowH = 20;
  const width = labelW + barMax + 90;
  const height = rates.length * rowH + 8;
  const parts = [svgOpen('rates', width, height, options.title)];
  rates.forEach((r, i) => {
    const share = r.total > 0 ? r.passed / r.total : 0;
    const y = 4 + i * rowH;
    parts.push(text(labelW - 8, y + 13, r.label, 'text-anchor="end" font-family="monospace" font-size="11"'),
      `<rect x="${labelW}" y="${y + 3}" width="${barMax}" height="${rowH - 6}" fill="${GRID}"/>`,
      `<rect class="bar" x="${labelW}" y="${y + 3}" width="${(barMax * share).toFixed(1)}" height="${rowH - 6}" ` +
        `fill="${share === 1 ? '#3a9d5d' : SERIES_COLORS[0]}"><title>${escapeHtml(`${r.label}: ${r.passed} of ${r.total}`)}</title></rect>`,
      text(labelW + barMax + 6, y + 13, `${r.passed}/${r.total} (${Math.round(share * 100)}%)`));
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** Round ticks from min to at least max: a step of 1, 2, 2.5 or 5 times a power of ten, at most six ticks. */
export function niceTicks(min: number, max: number): number[] {
  const span = max - min || Math.abs(max) || 1;
  const power = 10 ** Math.floor(Math.log10(span / 4));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => span / s <= 5)!;
  const first = Math.floor(min / step) * step;
  const ticks: number[] = [];
  for (let v = first; v < max + step * 0.999; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks.length > 1 ? ticks : [first, first + step];
}

export interface Series {
  label: string;
  points: readonly { x: number; y: number }[];
  marker: 'circle' | 'square';
}

export interface LinePlotOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  /** x on a log2 axis, ticked at each point's x. */
  logX?: boolean;
  /** Dashed horizontal lines, e.g. saturation at 1. */
  guides?: readonly { y: number; label: string }[];
  yMin?: number;
}

export function linePlotSvg(series: readonly Series[], options: LinePlotOptions): string {
  // The legend sits between the title and the plot, where no curve can hide it.
  const m = { left: 56, right: 16, top: 30 + 16 * series.length, bottom: 44 };
  const [plotW, plotH] = [420, 230];
  const width = m.left + plotW + m.right;
  const height = m.top + plotH + m.bottom;
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const ys = [...series.flatMap((s) => s.points.map((p) => p.y)), ...(options.guides ?? []).map((g) => g.y)];
  const fx = (x: number) => (options.logX ? Math.log2(x) : x);
  const [x0, x1] = [fx(xs[0]), fx(xs[xs.length - 1])];
  const ticks = niceTicks(options.yMin ?? Math.min(...ys), Math.max(...ys));
  const [y0, y1] = [ticks[0], ticks[ticks.length - 1]];
  const px = (x: number) => m.left + (plotW * (fx(x) - x0)) / (x1 - x0 || 1);
  const py = (y: number) => m.top + plotH - (plotH * (y - y0)) / (y1 - y0 || 1);
  const parts = [svgOpen('plot', width, height, options.title), text(m.left, 16, options.title, 'font-weight="600" font-size="13"')];
  for (const v of ticks) {
    parts.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${py(v)}" y2="${py(v)}" stroke="${GRID}"/>`,
      text(m.left - 6, py(v) + 4, formatNumber(Number(v.toPrecision(3))), 'text-anchor="end"'));
  }
  for (const x of xs) parts.push(text(px(x), m.top + plotH + 16, String(x), 'text-anchor="middle"'));
  for (const g of options.guides ?? []) {
    parts.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${py(g.y)}" y2="${py(g.y)}" stroke="#c0392b" stroke-dasharray="5 4"/>`,
      text(m.left + plotW - 4, py(g.y) - 4, g.label, 'text-anchor="end" fill="#c0392b"'));
  }
  series.forEach((s, k) => {
    const color = SERIES_COLORS[k % SERIES_COLORS.length];
    const path = s.points.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ');
    parts.push(`<polyline class="series" points="${path}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const p of s.points) {
      const tip = `<title>${escapeHtml(`${s.label}: x ${p.x}, y ${formatNumber(p.y)}`)}</title>`;
      const [cx, cy] = [px(p.x), py(p.y)];
      parts.push(s.marker === 'circle'
        ? `<circle class="point" cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="4" fill="${color}">${tip}</circle>`
        : `<rect class="point" x="${(cx - 4).toFixed(1)}" y="${(cy - 4).toFixed(1)}" width="8" height="8" fill="${color}">${tip}</rect>`);
    }
    const ly = 30 + k * 16;
    parts.push(`<line x1="${m.left + 10}" x2="${m.left + 30}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`,
      text(m.left + 36, ly + 4, s.label));
  });
  parts.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${m.top + plotH}" y2="${m.top + plotH}" stroke="${AXIS}"/>`,
    `<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + plotH}" stroke="${AXIS}"/>`,
    text(m.left + plotW / 2, height - 8, options.xLabel, 'text-anchor="middle"'),
    text(14, m.top + plotH / 2, options.yLabel, `text-anchor="middle" transform="rotate(-90 14 ${m.top + plotH / 2})"`),
    '</svg>');
  return parts.join('\n');
}
