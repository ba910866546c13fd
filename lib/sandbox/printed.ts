/**
 * What student code prints during one call, captured the same way in both paths: by the grader's
 * child (childMain.ts) and by `npm test` (lib/grading/inProcess.ts). The first `cap` characters are
 * kept; past them a print is only counted, never formatted, so a function that prints in a loop
 * pays for the lines a person can read and no more: 200,000 console.log calls cost milliseconds
 * instead of the time limit. A call that prints more than FLOOD_PRINTS times is a flood, and every
 * message that reports the call says so.
 */
import { format, inspect } from 'node:util';
import { plural } from '../format';

/** Prints in one call past which its output is a flood. */
export const FLOOD_PRINTS = 10_000;

/** What a call that flooded its output is told, in both paths. */
export function floodWords(prints?: number): string {
  const how = prints === undefined ? `more than ${FLOOD_PRINTS.toLocaleString('en')} times` : `${prints.toLocaleString('en')} times`;
  return `It printed ${how} in this test: a flood of output. Print less (not in a loop), or nothing: printing costs no points, but a flood costs time.`;
}

export class PrintCapture {
  private kept = '';
  /** Characters of the print that crossed the cap, cut. */
  private cut = 0;
  /** Prints not kept at all. */
  private skipped = 0;
  /** Prints in this call. */
  prints = 0;

  /** `onFlood`: called once per call, at its first print past FLOOD_PRINTS. */
  constructor(
    public cap: number,
    private readonly onFlood?: () => void,
  ) {}

  get flooded(): boolean {
    return this.prints > FLOOD_PRINTS;
  }

  private count(): boolean {
    if (++this.prints === FLOOD_PRINTS + 1) this.onFlood?.();
    if (this.kept.length < this.cap) return true;
    this.skipped++;
    return false;
  }

  /** One print whose text is made only when there is room for it. */
  print(text: () => string): void {
    if (!this.count()) return;
    const whole = text();
    const room = this.cap - this.kept.length;
    this.kept += whole.slice(0, room);
    this.cut += Math.max(0, whole.length - room);
  }

  /** What was printed since the last take, with a line for what was not kept. */
  take(): string {
    const notes: string[] = [];
    if (this.cut) notes.push(`${plural(this.cut, 'more character')} of output not shown`);
    if (this.skipped) notes.push(`${plural(this.skipped, 'more print')} not shown`);
    let text = this.kept;
    if (notes.length) text += `\n… ${notes.join(', ')}`;
    if (this.flooded) text += `\n${floodWords(this.prints)}`;
    this.kept = '';
    this.cut = 0;
    this.skipped = 0;
    this.prints = 0;
    return text;
  }
}

/** Text of a chunk written to a stream: student code may pass anything. */
export function chunkText(chunk: unknown): string {
  if (typeof chunk === 'string') return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
  try {
    return String(chunk);
  } catch {
    return '';
  }
}

type Printing = 'log' | 'info' | 'debug' | 'warn' | 'error' | 'trace' | 'dir' | 'table' | 'assert';

/** The console methods that print their arguments, each as one print of the capture. */
export function capturingConsole(capture: PrintCapture): Pick<Console, Printing> {
  const line = (...args: unknown[]) => capture.print(() => `${format(...args)}\n`);
  return {
    log: line, info: line, debug: line, warn: line, error: line, table: line,
    trace: (...args: unknown[]) => capture.print(() => `Trace: ${format(...args)}\n`),
    dir: (value: unknown) => capture.print(() => `${inspect(value)}\n`),
    assert: (condition?: unknown, ...args: unknown[]) => {
      if (!condition) capture.print(() => `Assertion failed${args.length ? `: ${format(...args)}` : ''}\n`);
    },
  };
}

/**
 * Puts the capturing console methods on `target` (the global console) until the returned function
 * is called, which puts the originals back.
 */
export function redirectConsole(target: Console, capture: PrintCapture): () => void {
  const replacement = capturingConsole(capture);
  const names = Object.keys(replacement) as Printing[];
  const originals = names.map((name) => target[name]);
  for (const name of names) (target as unknown as Record<string, unknown>)[name] = replacement[name];
  return () => names.forEach((name, i) => ((target as unknown as Record<string, unknown>)[name] = originals[i]));
}
