import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { CaseResult, SubmissionResult } from '../model/result';
import { gradebookCsv, rowFromGradescope, rowFromResult } from './csv';
import { toGradescope } from './gradescope';
import { githubNotice, githubSummaryMarkdown, writeGithubOutputs } from './github';
import { neutraliseWorkflowCommands } from '../text/sanitise';
import { formatBatchSummary, formatTable, wrap } from './terminal';
import { caseResult, submission as sampleSubmission } from './sampleResults';

const submission = (name: string, cases: CaseResult[], over: Partial<SubmissionResult> = {}) =>
  sampleSubmission(name, cases, { executionTimeMs: 900, ...over });

const CASES = ['test_softmax_last_dim', 'test_causal_mask', 'test_multihead_self_attention'];
const graded = (name: string, ...statuses: CaseResult['status'][]): SubmissionResult =>
  submission(name, CASES.map((n, i) => caseResult(n, { status: statuses[i] ?? 'passed', reason: statuses[i] ? `${n} went wrong` : '' })));
const broken = (name: string, feedback: string[]): SubmissionResult =>
  submission(name, [], { status: 'error', maxScore: 1.5, feedback });

/** Every line as the Actions runner would see it: split on \r too, leading whitespace trimmed. */
const runnerLines = (text: string): string[] => text.split(/\r\n|\r|\n/).map((l) => l.trimStart());
function expectNoWorkflowCommand(text: string): void {
  for (const line of runnerLines(text)) {
    expect(line.startsWith('::'), line).toBe(false);
    expect(line.includes('##['), line).toBe(false);
  }
}
const HOSTILE = 'ok\n::error file=x::pwned\r  ::set-output name=score::12\n##[add-mask]secret | [link](http://x) <img src=x>';

describe('gradebookCsv', () => {
  it('a byte-order mark, the header, one row per submission sorted by name (student2 before student10), CRLF line ends', () => {
    const csv = gradebookCsv([graded('student10'), graded('Bob', 'passed', 'timeout', 'crashed'), graded('student2'), graded('alice', 'failed')], CASES);
    expect(csv).toBe(
      '\uFEFF"name","test_softmax_last_dim","test_causal_mask","test_multihead_self_attention","total","max","status"\r\n' +
        '"alice",0,0.5,0.5,1,1.5,"graded"\r\n' +
        '"Bob",0.5,0,0,0.5,1.5,"graded (1 test timed out, 1 test crashed)"\r\n' +
        '"student2",0.5,0.5,0.5,1.5,1.5,"graded"\r\n' +
        '"student10",0.5,0.5,0.5,1.5,1.5,"graded"\r\n',
    );
  });

  it('status column: the unusual statuses counted in a fixed order, or the reason a submission could not run', () => {
    const rows = [
      rowFromResult(graded('a', 'timeout', 'not_implemented', 'timeout')),
      rowFromResult(graded('b', 'refused', 'error', 'failed')),
      rowFromResult(broken('c', ['', 'student/index.ts is missing: submit the student folder\nsecond line'])),
      rowFromResult(broken('d', [])),
    ];
    expect(rows.map((r) => r.status)).toEqual([
      'graded (1 test not implemented, 2 tests timed out)',
      'graded (1 test ended in an error, 1 test refused)',
      'error: student/index.ts is missing: submit the student folder',
      'error: the submission could not be run',
    ]);
  });

  it('RFC 4180 quoting of commas, quotes and newlines; a case never reached is an empty cell, not 0', () => {
    const csv = gradebookCsv([broken('Smith, "Jo"\nB', ['type error: a, b'])], ['t', 'u']);
    expect(csv.split('\r\n')[1]).toBe('"Smith, ""Jo""\nB",,,0,1.5,"error: type error: a, b"');
  });

  it('formula injection: a text cell starting with = + - @ tab or CR gets a leading quote; numbers do not', () => {
    const lineFor = (name: string): string =>
      gradebookCsv([{ name, points: { t: -0.5 }, total: -0.5, max: 1, status: 'graded' }], ['t']).split('\r\n')[1];
    expect(lineFor('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")",-0.5,-0.5,1,"graded"');
    expect(lineFor('+1')).toBe('"\'+1",-0.5,-0.5,1,"graded"');
    expect(lineFor('-2')).toBe('"\'-2",-0.5,-0.5,1,"graded"');
    expect(lineFor('@SUM(A1)')).toBe('"\'@SUM(A1)",-0.5,-0.5,1,"graded"');
    expect(lineFor('\tcmd')).toBe('"\'\tcmd",-0.5,-0.5,1,"graded"');
    expect(lineFor('\rcmd')).toBe('"\'\rcmd",-0.5,-0.5,1,"graded"');
    expect(lineFor('safe-name=1')).toBe('"safe-name=1",-0.5,-0.5,1,"graded"');
    // A spreadsheet that splits on ; or TAB starts a cell inside this one: each piece is guarded.
    expect(lineFor('x;=1+2;')).toBe('"x;\'=1+2;",-0.5,-0.5,1,"graded"');
    expect(lineFor('x\t @A1,-3')).toBe('"x\t \'@A1,\'-3",-0.5,-0.5,1,"graded"');
  });

  it('rows rebuilt from the Gradescope files equal the rows made from the results', () => {
    const results = [graded('b', 'passed', 'timeout', 'crashed'), graded('a', 'failed'), broken('c', ['no index.ts'])];
    const rebuilt = results.map((r) => rowFromGradescope(r.name, JSON.parse(JSON.stringify(toGradescope(r)))));
    expect(rebuilt).toEqual(results.map(rowFromResult));
    expect(gradebookCsv(rebuilt, CASES)).toBe(gradebookCsv(results, CASES));
  });

  it('refuses a results.json it did not write, and says what to do', () => {
    const foreign = { score: 1, tests: [] } as unknown as Parameters<typeof rowFromGradescope>[1];
    expect(() => rowFromGradescope('eve', foreign)).toThrow('eve.json has no extra_data.cases, so it was not written by this grader: grade eve again');
  });
});

describe('formatTable', () => {
  const result = submission('s', [
    caseResult('test_softmax_last_dim', { maxPoints: 0.25 }),
    caseResult('test_causal_mask', { status: 'not_implemented', reason: 'causalMask is not implemented yet: edit student/index.ts' }),
    caseResult('test_multihead_self_attention', { status: 'failed', maxPoints: 2, reason: 'expected 0.25 at [0, 1], got 0.5 — ' + 'x'.repeat(200) }),
  ], { feedback: ['helper.ts: unused import'] });
  const FIX = 'Diagnosis: Your output equals attention without the 1/√d_k scale: divide the scores by √d_k before the softmax, as softmax(Q Kᵀ / √d_k) V';

  it('feedback, then name, points, status and reason per test, then the total; 100 columns at most', () => {
    const table = formatTable(result, { color: false });
    for (const line of table.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
    expect(table).toBe([
      'helper.ts: unused import',
      '',
      'test_softmax_last_dim          0.25/0.25  passed',
      'test_causal_mask               0/0.5      not_implemented',
      '    causalMask is not implemented yet: edit student/index.ts',
      'test_multihead_self_attention  0/2        failed',
      '    expected 0.25 at [0, 1], got 0.5 —',
      `    ${'x'.repeat(96)}`,
      `    ${'x'.repeat(96)}`,
      `    ${'x'.repeat(8)}`,
      'Total: 0.25/2.75',
    ].join('\n'));
  });

  it('a long reason is wrapped at spaces below its test, never cut: the fix at its end stays', () => {
    const table = formatTable(submission('s', [caseResult('test_scaled_dot_product_attention', { status: 'failed', maxPoints: 1, reason: FIX })]), { color: false });
    const lines = table.split('\n');
    expect(lines.slice(1, -1).every((l) => l.startsWith('    ') && l.length <= 100)).toBe(true);
    expect(lines.slice(1, -1).map((l) => l.slice(4)).join(' ')).toBe(FIX);
  });

  it('wrap: at spaces, code points counted, a word longer than a line split', () => {
    expect(wrap('aa bb cc', 5)).toEqual(['aa bb', 'cc']);
    expect(wrap('√√√√ ab', 4)).toEqual(['√√√√', 'ab']);
    expect(wrap('abcdefghij k', 4)).toEqual(['abcd', 'efgh', 'ij k']);
    expect(wrap('', 10)).toEqual([]);
  });

  it('--verbose: every test\'s details (the student\'s stack) and what it printed, sanitised, below its reason', () => {
    const verbose = submission('s', [
      caseResult('test_causal_mask', {
        status: 'error', reason: 'TypeError: x is not a function',
        details: 'TypeError: x is not a function\n    at causalMask (index.ts:12:7)', output: 'debug \x1b[31mred\x1b[0m\n::error::forged',
      }),
      caseResult('test_softmax_last_dim', { output: 'row sums 1' }),
      caseResult('test_quiet'),
    ]);
    expect(formatTable(verbose, { color: false, verbose: true })).toBe([
      'test_causal_mask       0/0.5    error   TypeError: x is not a function',
      '    details:',
      '      TypeError: x is not a function',
      '          at causalMask (index.ts:12:7)',
      '    printed:',
      '      debug [31mred[0m',
      '      :\u200b:error:\u200b:forged',
      'test_softmax_last_dim  0.5/0.5  passed',
      '    printed:',
      '      row sums 1',
      'test_quiet             0.5/0.5  passed',
      'Total: 1/1.5',
    ].join('\n'));
    expect(formatTable(verbose, { color: false })).not.toContain('printed:');
  });

  it('a reason that fits goes beside its test, aligned', () => {
    const short = submission('s', [
      caseResult('test_a', { status: 'timeout', reason: 'killed after 10 s' }),
      caseResult('test_bb', { status: 'failed', maxPoints: 2, reason: 'shape [2, 3], expected [3, 2]' }),
      caseResult('test_c'),
    ]);
    expect(formatTable(short, { color: false })).toBe([
      'test_a   0/0.5    timeout  killed after 10 s',
      'test_bb  0/2      failed   shape [2, 3], expected [3, 2]',
      'test_c   0.5/0.5  passed',
      'Total: 0.5/3',
    ].join('\n'));
  });

  it('colour: green passed, yellow not_implemented, red otherwise; none and no escape codes at all when off', () => {
    const coloured = formatTable(result, { color: true });
    expect(coloured).toContain('\x1b[32mpassed\x1b[39m');
    expect(coloured).toContain('\x1b[33mnot_implemented\x1b[39m');
    expect(coloured).toContain('\x1b[31mfailed\x1b[39m');
    const sneaky = submission('s', [caseResult('t', { status: 'crashed', reason: '\x1b[32mlooks green\x1b[0m\rrewritten' })]);
    expect(formatTable(sneaky, { color: true })).toContain('\x1b[31mcrashed\x1b[39m');
    expect(formatTable(sneaky, { color: false })).not.toContain('\x1b');
    expect(formatTable(result, { color: false })).not.toContain('\x1b');
  });

  it('a submission that could not run says so before the total', () => {
    expect(formatTable(broken('s', ['student/index.ts is missing']), { color: false })).toBe(
      'The submission could not be run, so no test was graded.\nstudent/index.ts is missing\n\nTotal: 0/1.5');
  });

  it('student text cannot start a workflow command in the printed table', () => {
    expectNoWorkflowCommand(formatTable(submission('s', [caseResult('t', { status: 'error', reason: HOSTILE })], { feedback: [HOSTILE] }), { color: false }));
  });
});

describe('formatBatchSummary', () => {
  it('count, mean, min, max, and how many met each kind of trouble', () => {
    const results = [graded('a'), graded('b', 'timeout', 'crashed'), graded('c', 'timeout', 'refused', 'error'), broken('d', ['no index.ts'])];
    expect(formatBatchSummary(results)).toBe([
      'Submissions: 4',
      'Score (out of 1.5): mean 0.5, min 0, max 1.5',
      'Submissions with a test that timed out: 2, crashed: 1, ended in an error: 1, was refused: 1',
      'Could not be graded at all: 1 (d)',
    ].join('\n'));
    expect(formatBatchSummary([])).toBe('No submissions graded.');
  });
});

describe('GitHub Actions', () => {
  const result = submission('alice|bob', [
    caseResult('test_softmax_last_dim', { fn: 'softmax', maxPoints: 0.25 }),
    caseResult('test_causal_mask', { status: 'failed', reason: 'pipe | and\nnewline *bold* `code`' }),
  ], { feedback: ['::warning::from the student'] });

  it('neutraliseWorkflowCommands breaks :: and ##[ wherever a line may start, and changes nothing visible', () => {
    const safe = neutraliseWorkflowCommands(HOSTILE);
    expectNoWorkflowCommand(safe);
    expect(safe.replace(/\u200B/g, '')).toBe(HOSTILE);
    expect(neutraliseWorkflowCommands('plain text: fine')).toBe('plain text: fine');
  });

  it('summary: a Markdown table whose cells cannot be broken out of, and the total', () => {
    expect(githubSummaryMarkdown(result)).toBe([
      '### alice\\|bob: 0.25/0.75 points',
      '',
      '- \\:\\:warning\\:\\:from the student',
      '',
      '| Test | Points | Status | Reason |',
      '| --- | --- | --- | --- |',
      '| test\\_softmax\\_last\\_dim | 0.25/0.25 | ✅ passed |  |',
      '| test\\_causal\\_mask | 0/0.5 | ❌ failed | pipe \\| and newline \\*bold\\* \\`code\\` |',
      '| **Total** | **0.25/0.75** | | |',
      '',
    ].join('\n'));
  });

  it('hostile student text stays inside its cell, renders no HTML or link, and starts no workflow command', () => {
    const md = githubSummaryMarkdown(submission('x', [caseResult('t', { status: 'error', reason: HOSTILE })], { feedback: [HOSTILE] }));
    const row = md.split('\n').find((l) => l.startsWith('| t '))!;
    expect(row.match(/(?<!\\)\|/g)).toHaveLength(5);
    expect(md).not.toMatch(/(?<!\\)[<[]/);
    expectNoWorkflowCommand(md);
  });

  it('notice: ::notice title=Points::Points X/Y', () => {
    expect(githubNotice(result)).toBe('::notice title=Points::Points 0.25/0.75');
    expect(githubNotice(broken('x', []))).toBe('::notice title=Points::Points 0/1.5');
  });

  it('writeGithubOutputs appends to GITHUB_STEP_SUMMARY when set and returns the notice', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'github-report-'));
    onTestFinished(() => fs.rmSync(tmp, { recursive: true, force: true }));
    const file = path.join(tmp, 'summary.md');
    fs.writeFileSync(file, 'earlier step\n');
    expect(writeGithubOutputs(result, { GITHUB_STEP_SUMMARY: file })).toBe(githubNotice(result));
    expect(fs.readFileSync(file, 'utf8')).toBe(`earlier step\n${githubSummaryMarkdown(result)}\n`);
    expect(writeGithubOutputs(result, {})).toBe(githubNotice(result));
    expect(fs.readdirSync(tmp)).toEqual(['summary.md']);
  });
});
