/**
 * The job summary of a merged batch in GitHub Actions: how many submissions, how the points spread
 * (the same one-point bins as report.html), and how many could not be graded. Numbers only: no
 * submission's name or text reaches the summary, so nothing a student wrote needs escaping here.
 */
import { scoreBins } from './batchReport';
import { formatPoints } from './words';
import { POINT_DECIMALS } from './points';
import type { SummaryEntry } from './terminal';

const BAR_WIDTH = 30;

export function batchSummaryMarkdown(entries: readonly SummaryEntry[]): string {
  if (entries.length === 0) return '### Gradebook: no submissions\n\n';
  const scores = entries.map((e) => e.score);
  const max = Math.max(...entries.map((e) => e.maxScore));
  const shown = (x: number) => formatPoints(x, POINT_DECIMALS);
  const mean = scores.reduce((s, x) => s + x, 0) / scores.length;
  const errored = entries.filter((e) => e.status === 'error').length;
  const bins = scoreBins(scores, max);
  const widest = Math.max(...bins.map((b) => b.count));
  const lines = [
    `### Gradebook: ${entries.length} submissions`,
    '',
    `Points out of ${shown(max)}: mean **${shown(mean)}**, min ${shown(Math.min(...scores))}, ` +
      `max ${shown(Math.max(...scores))}; ${errored} could not be graded at all.`,
    '',
    '| points | submissions | |',
    '| --- | ---: | --- |',
    ...bins.map((b) => `| ${b.label} | ${b.count} | ${'█'.repeat(Math.round((BAR_WIDTH * b.count) / Math.max(1, widest)))} |`),
  ];
  return `${lines.join('\n')}\n\n`;
}
