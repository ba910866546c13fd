/**
 * The submissions of a folder as the similarity check reads them: through the grader's intake
 * (lib/intake: no links, no special files, size caps; a refused folder is a row saying why), then
 * tokenised in worker threads (one per core for a large folder) under a time limit per submission, so
 * that no file, however pathological, can hold up the rest: past its limit the worker is stopped,
 * that submission gets a row saying so, and a new worker goes on with the others.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { take } from '../batch/provenance';
import { tokenIds } from './fingerprints';
import type { Handout } from './handout';
import { joinFiles, tokenise } from './tokens';

/** A submission's tokens as the index takes them: one number per token (fingerprints.ts tokenIds), and where each is. */
export interface Stream {
  ids: Int32Array<ArrayBuffer>;
  /** Four numbers per token: its Span (tokens.ts). */
  spans: Int32Array<ArrayBuffer>;
}

export interface Tokenised extends Stream {
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
 * A worker costs about what tokenising this many submissions does (it loads TypeScript): another
 * worker is started for each such batch, up to one per core.
 */
const TEXTS_PER_WORKER = 100;

/** Workers to tokenise `count` texts with, started at once: one per TEXTS_PER_WORKER, one per core at most, four at most. */
export function startWorkers(count: number): Promise<Worker>[] {
  return Array.from({ length: Math.max(1, Math.min(Math.ceil(count / TEXTS_PER_WORKER), os.availableParallelism(), 4)) }, startWorker);
}

/** One text through `worker`: its tokens, or why there are none (past `limitMs`, or the worker died). */
function ask(worker: Worker, id: number, text: string, limitMs: number): Promise<Stream | string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      done();
      resolve(`tokenising took longer than ${limitMs / 1000} s and was stopped`);
    }, limitMs);
    const onMessage = (m: { id: number } & Stream) => {
      if (m.id !== id) return;
      done();
      resolve({ ids: m.ids, spans: m.spans });
    };
    const onExit = (code: number) => {
      done();
      resolve(`the tokeniser stopped (exit code ${code}) on this submission`);
    };
    const done = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('exit', onExit);
    worker.postMessage({ id, text });
  });
}

/**
 * Tokens of each text, in order; a text past its limit (its own `limitMs`, else the one given) or
 * that kills the worker gets a problem instead. `workers` may be started beforehand (startWorkers).
 */
export async function tokeniseTexts(texts: readonly { name: string; text: string; limitMs?: number }[], defaultLimitMs = TOKENISE_LIMIT_MS,
  workers: Promise<Worker>[] = startWorkers(texts.length)): Promise<Collected[]> {
  const out: Collected[] = new Array(texts.length);
  let next = 0;
  // Each lane takes the next text as soon as its worker is free; a stopped worker is replaced.
  const lane = async (first: Promise<Worker>) => {
    let worker: Worker | undefined = await first;
    try {
      while (next < texts.length) {
        const id = next++;
        const { name, text, limitMs = defaultLimitMs } = texts[id];
        worker ??= await startWorker();
        const answer = await ask(worker, id, text, limitMs);
        if (typeof answer === 'string') {
          out[id] = { name, problem: answer };
          void worker.terminate();
          worker = undefined;
        } else out[id] = { name, text, ...answer };
      }
    } finally {
      void worker?.terminate();
    }
  };
  await Promise.all(workers.map(lane));
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
  const folders = submissionFolders(dir);
  // The workers load TypeScript while this thread reads the folders.
  const workers = startWorkers(folders.length);
  const read = folders.map((name) => ({ name, taken: take(path.join(dir, name), name) }));
  const texts = read.flatMap(({ name, taken }) => (taken instanceof Error ? [] : [{ name, text: joinFiles(taken.files, taken.entry) }]));
  const tokenised = new Map((await tokeniseTexts(texts, limitMs, workers)).map((c) => [c.name, c]));
  return read.map(({ name, taken }) => (taken instanceof Error ? { name, problem: `not read: ${taken.message}` } : tokenised.get(name)!));
}

/**
 * The handout's code (handout.ts): its files joined, as a submission's are, and tokenised here:
 * it is the instructor's, and this process has TypeScript loaded already.
 */
export function collectHandout(handout: Handout): Collected {
  const text = joinFiles(handout.files, handout.entry);
  const { tokens, spans } = tokenise(text);
  return { name: '(handout)', text, ids: tokenIds(tokens), spans };
}
