/**
 * The submissions of a folder as the similarity check reads them: through the grader's intake
 * (lib/intake: no links, no special files, size caps; a refused folder is a row saying why), then
 * tokenised in a worker thread under a time limit per submission, so that no file, however
 * pathological, can hold up the rest: past its limit the worker is stopped, that submission gets
 * a row saying so, and a new worker goes on with the others.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { take } from '../batch/provenance';
import { joinFiles, type Span, type Tokens } from './tokens';

export interface Tokenised extends Tokens {
  name: string;
  /** The submission's TypeScript files joined (tokens.ts joinFiles): what the page shows. */
  text: string;
}

export interface NotCompared {
  name: string;
  problem: string;
}

export type Collected = Tokenised | NotCompared;

/** Tokenising a submission takes milliseconds; this is for a file built to make it take forever. */
export const TOKENISE_LIMIT_MS = 10_000;
const WORKER_HEAP_MB = 512;

function startWorker(): Promise<Worker> {
  const code = `require(${JSON.stringify(require.resolve('ts-node/register/transpile-only'))});\nrequire(${JSON.stringify(path.join(__dirname, 'worker.ts'))});`;
  const worker = new Worker(code, { eval: true, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  worker.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve(worker));
    worker.once('exit', (codeNumber) => reject(new Error(`the tokenising worker did not start (exit code ${codeNumber})`)));
  });
}

/**
 * Tokens of each text, in order; a text past its limit (its own `limitMs`, else the one given) or
 * that kills the worker gets a problem instead.
 */
export async function tokeniseTexts(texts: readonly { name: string; text: string; limitMs?: number }[], defaultLimitMs = TOKENISE_LIMIT_MS): Promise<Collected[]> {
  const out: Collected[] = [];
  let worker: Worker | undefined;
  try {
    for (const [id, { name, text, limitMs = defaultLimitMs }] of texts.entries()) {
      worker ??= await startWorker();
      const w = worker;
      const answer = await new Promise<Tokens | string>((resolve) => {
        const timer = setTimeout(() => resolve(`tokenising took longer than ${limitMs / 1000} s and was stopped`), limitMs);
        const onMessage = (m: { id: number; tokens: string[]; spans: Span[] }) => {
          if (m.id !== id) return;
          done();
          resolve({ tokens: m.tokens, spans: m.spans });
        };
        const onExit = (code: number) => {
          done();
          resolve(`the tokeniser stopped (exit code ${code}) on this submission`);
        };
        const done = () => {
          clearTimeout(timer);
          w.off('message', onMessage);
          w.off('exit', onExit);
        };
        w.on('message', onMessage);
        w.on('exit', onExit);
        w.postMessage({ id, text });
      });
      if (typeof answer === 'string') {
        out.push({ name, problem: answer });
        void worker.terminate();
        worker = undefined;
      } else out.push({ name, text, ...answer });
    }
  } finally {
    void worker?.terminate();
  }
  return out;
}

/** The submission folders of `dir` (one per student), sorted by name; dot-folders are not submissions. */
export function submissionFolders(dir: string): string[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new Error(`submissions folder ${dir} not found: pass a folder with one subfolder per submission`);
  return fs.readdirSync(dir, { withFileTypes: true })
    .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
}

/** Every submission of `dir` through the intake, then tokenised. */
export async function collect(dir: string, limitMs = TOKENISE_LIMIT_MS): Promise<Collected[]> {
  const read = submissionFolders(dir).map((name) => ({ name, taken: take(path.join(dir, name), name) }));
  const texts = read.flatMap(({ name, taken }) => (taken instanceof Error ? [] : [{ name, text: joinFiles(taken.files, taken.entry) }]));
  const tokenised = new Map((await tokeniseTexts(texts, limitMs)).map((c) => [c.name, c]));
  return read.map(({ name, taken }) => (taken instanceof Error ? { name, problem: `not read: ${taken.message}` } : tokenised.get(name)!));
}

/** The handout's code (--base, student/ by default): its files joined, as a submission's are. */
export async function collectBase(dir: string, limitMs = TOKENISE_LIMIT_MS): Promise<Collected> {
  const taken = take(dir, path.basename(dir));
  if (taken instanceof Error) return { name: '(handout)', problem: `the handout ${dir} could not be read: ${taken.message}` };
  const [one] = await tokeniseTexts([{ name: '(handout)', text: joinFiles(taken.files, taken.entry) }], limitMs);
  return one;
}
