/**
 * GitHub Actions: a Markdown job summary and a `::notice` with the points.
 *
 * Reasons, feedback and submission names are written by students (an error message is whatever
 * their code threw). The runner (actions/runner, ActionCommand.cs) runs a workflow command from any
 * stdout line that starts with `::` once leading whitespace is trimmed, and a legacy `##[command]`
 * found anywhere in a line, so a leading space is no protection and student text is broken up below.
 */
import fs from 'node:fs';
import type { CaseStatus, SubmissionResult } from '../model/result';
import { formatPoints } from './words';
import { flatten } from '../text/sanitise';

/**
 * Student text as one Markdown table cell: one line, control characters dropped, and every ASCII
 * punctuation character backslash-escaped (CommonMark allows that for all of them), so a `|` cannot
 * end the cell and a reason cannot turn into a link, an image, HTML or a code span.
 */
export function escapeMarkdownCell(text: string): string {
  // Escaping every punctuation character also breaks `::` and `##[`.
  return flatten(text).replace(/[!-/:-@[-`{-~]/g, (ch) => `\\${ch}`);
}

const STATUS_MARK: Record<CaseStatus, string> = {
  passed: '✅',
  failed: '❌',
  not_implemented: '⬜',
  error: '❌',
  timeout: '⏱️',
  crashed: '💥',
  refused: '⛔',
};

export function githubSummaryMarkdown(result: SubmissionResult): string {
  const total = `${formatPoints(result.score)}/${formatPoints(result.maxScore)}`;
  const lines = [`### ${escapeMarkdownCell(result.name)}: ${total} points`, ''];
  if (result.status === 'error') lines.push('The submission could not be run, so no test was graded.', '');
  if (result.feedback.length > 0) {
    for (const note of result.feedback) lines.push(`- ${escapeMarkdownCell(note)}`);
    lines.push('');
  }
  if (result.cases.length > 0) {
    lines.push('| Test | Points | Status | Reason |', '| --- | --- | --- | --- |');
    for (const c of result.cases) {
      const points = `${formatPoints(c.points)}/${formatPoints(c.maxPoints)}`;
      const status = `${STATUS_MARK[c.status]} ${c.status.replace('_', ' ')}`;
      lines.push(`| ${escapeMarkdownCell(c.name)} | ${points} | ${status} | ${escapeMarkdownCell(c.reason)} |`);
    }
    lines.push(`| **Total** | **${total}** | | |`);
  }
  return lines.join('\n') + '\n';
}

/** The points as an annotation on the run: `::notice title=Points::Points 4.75/12`. Numbers only. */
export function githubNotice(result: SubmissionResult): string {
  return `::notice title=Points::Points ${formatPoints(result.score)}/${formatPoints(result.maxScore)}`;
}

/**
 * Appends the summary to the file GitHub names in GITHUB_STEP_SUMMARY (when running in Actions) and
 * returns the notice line, for the caller to print on stdout.
 */
export function writeGithubOutputs(result: SubmissionResult, env: NodeJS.ProcessEnv = process.env): string {
  const summaryFile = env.GITHUB_STEP_SUMMARY;
  if (summaryFile) fs.appendFileSync(summaryFile, githubSummaryMarkdown(result) + '\n');
  return githubNotice(result);
}
