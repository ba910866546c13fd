/**
 * Not imported: run by parserLimits.ts as a process of its own, since what it measures is how deep
 * a parser goes before it brings its process down.
 *
 *   node [flags] -r scripts/runTs.js lib/bench/nestingProbe.ts <parser> <construct> <count> [thread]
 *
 * Parses the construct (lib/bench/nesting.ts) nested as deep as `count` allows, once, with one
 * parser (oxc as the load check calls it, on this thread or on a worker thread as vitest's pool
 * runs it; TypeScript as the transpiling process calls it), and writes `ok <count>`, `threw
 * <count> <message>`, or `cap <count>` when the source would be over the intake's size cap. Once
 * per process: V8's frames are larger before its compiler has warmed up, and a crashed or
 * replaced transpiling process starts cold.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { isMainThread, Worker, workerData } from 'node:worker_threads';
import ts from 'typescript';
import { INTAKE_LIMITS } from '../intake/folder';
import { COMPILER_OPTIONS } from '../sandbox/build';
import { depthOf, NESTING_CONSTRUCTS, stepsWithin } from './nesting';
import { RUN_TS } from '../paths';

const parseAst = () => (createRequire(__filename)('rolldown/parseAst') as { parseAst: (source: string, options: object, file: string) => unknown }).parseAst;

const PARSERS: Record<string, (source: string) => void> = {
  oxc: (source) => void parseAst()(source, { lang: 'ts', sourceType: 'module' }, 'index.ts'),
  typescript: (source) => void ts.transpileModule(source, { compilerOptions: { ...COMPILER_OPTIONS, sourceMap: true }, fileName: 'index.ts', reportDiagnostics: true }),
};

function probe(parser: string, construct: string, count: number): string {
  const source = NESTING_CONSTRUCTS[construct].source(stepsWithin(NESTING_CONSTRUCTS[construct], count));
  const reached = depthOf(source);
  if (source.length > INTAKE_LIMITS.fileBytes) return `cap ${reached}`;
  try {
    PARSERS[parser](source);
  } catch (err) {
    return `threw ${reached} ${String((err as Error)?.message ?? err).split('\n')[0]}`;
  }
  return `ok ${reached}`;
}

const say = (line: string) => void fs.writeSync(1, `${line}\n`);

if (!isMainThread) {
  const { parser, construct, count } = workerData as { parser: string; construct: string; count: number };
  say(probe(parser, construct, count));
} else if (require.main === module) {
  const [parser, construct, count, thread] = process.argv.slice(2);
  // vitest's pool runs npm test on worker threads (vitest.config.mts), with a worker's own stack.
  if (thread === 'thread') new Worker(__filename, { workerData: { parser, construct, count: Number(count) }, execArgv: ['-r', RUN_TS] });
  else say(probe(parser, construct, Number(count)));
}
