/**
 * How deep each parser that reads a submission goes before it brings its process down or throws,
 * per construct of lib/bench/nesting.ts, in the nesting bound's own count: the margin between
 * NESTING_LIMIT and the first depth any of them fails at. Each depth is parsed once by a process
 * of its own (nestingProbe.ts), at growing multiples of the bound until one fails.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT, RUN_TS } from '../paths';
import { NESTING_LIMIT } from '../text/nesting';
import { TRANSPILER_FLAGS } from '../sandbox/transpilePool';
import { NESTING_CONSTRUCTS } from './nesting';

const MULTIPLES = [1, 2, 4, 8, 16, 32, 64];
/** A parse that takes longer is stopped and said as slow, not as a failure of the stack. */
const PROBE_LIMIT_MS = 120_000;
const PROBE = path.join(PROJECT_ROOT, 'lib', 'bench', 'nestingProbe.ts');

export interface Parser {
  name: string;
  parser: 'oxc' | 'typescript';
  flags: readonly string[];
  thread?: true;
}

export const PARSERS: Parser[] = [
  { name: 'oxc, transpiling process', parser: 'oxc', flags: TRANSPILER_FLAGS },
  { name: 'oxc, worker thread (npm test)', parser: 'oxc', flags: [], thread: true },
  { name: 'TypeScript, transpiling process', parser: 'typescript', flags: TRANSPILER_FLAGS },
  { name: "TypeScript, Node's default stack", parser: 'typescript', flags: [] },
];

export interface Limit {
  /** The deepest count parsed. */
  survived: number;
  /** The first count that failed, and how (a signal, the parser's exception, slow); absent: none failed up to the size cap or the last multiple. */
  failed?: { at: number; how: string };
}

function probeOnce(parser: Parser, construct: string, count: number): { line: string; how?: string } {
  const run = spawnSync(process.execPath, [...parser.flags, '-r', RUN_TS, PROBE, parser.parser, construct, String(count), ...(parser.thread ? ['thread'] : [])], {
    cwd: PROJECT_ROOT, encoding: 'utf8', timeout: PROBE_LIMIT_MS, killSignal: 'SIGKILL',
  });
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (run.error || run.signal === 'SIGKILL') return { line, how: `slower than ${PROBE_LIMIT_MS / 1000} s` };
  if (run.signal || run.status !== 0) return { line, how: run.signal ?? `exit code ${run.status}` };
  return { line };
}

export function measureLimit(parser: Parser, construct: string): Limit {
  let survived = 0;
  for (const multiple of MULTIPLES) {
    const count = multiple * NESTING_LIMIT;
    const { line, how } = probeOnce(parser, construct, count);
    const [word, reached, ...message] = line.split(' ');
    if (how) return { survived, failed: { at: count, how } };
    if (word === 'threw') return { survived, failed: { at: Number(reached), how: message.join(' ') } };
    if (word !== 'ok') return { survived };
    survived = Number(reached);
  }
  return { survived };
}

export function measureParserLimits(): Map<string, Limit[]> {
  return new Map(Object.keys(NESTING_CONSTRUCTS).map((construct) => [construct, PARSERS.map((parser) => measureLimit(parser, construct))]));
}

const cell = ({ survived, failed }: Limit) => (failed ? `${survived} (${failed.at}: ${failed.how.slice(0, 40)})` : `${survived}+`);

export function parserLimitsTable(limits: Map<string, Limit[]>): string[] {
  const lowest = PARSERS.map((_, p) => Math.min(...[...limits.values()].flatMap((row) => (row[p].failed ? [row[p].survived] : []))));
  return [
    `Deepest count parsed per construct (NESTING_LIMIT = ${NESTING_LIMIT}); in brackets the first count that failed and how; + : none failed up to ${MULTIPLES.at(-1)}× the bound or the 1 MiB file cap.`,
    '',
    `| construct | ${PARSERS.map((p) => p.name).join(' | ')} |`,
    `| --- | ${PARSERS.map(() => '---').join(' | ')} |`,
    ...[...limits].map(([construct, row]) => `| ${construct} | ${row.map(cell).join(' | ')} |`),
    `| lowest that failed | ${lowest.map((l) => (Number.isFinite(l) ? `${l} (${(l / NESTING_LIMIT).toFixed(1)}× the bound)` : 'none')).join(' | ')} |`,
  ];
}
