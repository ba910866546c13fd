/**
 * A submission's files as the token stream the index takes, in the reading child (readerMain.ts):
 * each file tokenised on its own (tokens.ts), in the order joinFiles shows them, each token placed
 * in the joined text the page shows. A file that cannot be read gets a reason that names it, as a
 * syntax error does: `nesting too deep at alice/index.ts:3:9: more than 200 brackets and operators …`.
 */
import { nestingReason } from '../text/nesting';
import { codeFile, codePlace } from '../text/place';
import { tokenIds } from './fingerprints';
import { joinOrder, tokenise, TooDeepError } from './tokens';

export interface Read {
  ids: Int32Array<ArrayBuffer>;
  /** Four numbers per token: its Span (tokens.ts), in the joined text. */
  spans: Int32Array<ArrayBuffer>;
}

export interface Unreadable {
  problem: string;
  /** Refused before any parser read it (lib/text/nesting.ts): whatever read it is as it was. */
  refused: boolean;
}

/** Why a file could not be read, naming it (`label` is how the submission's folder is named). */
function unreadable(label: string, file: string, err: unknown): string {
  if (err instanceof TooDeepError) return nestingReason(codePlace(label, file, err.place.line, err.place.column));
  const message = err instanceof Error ? err.message : String(err);
  // The pre-scan is an upper bound on the parser's depth; should the parser still run out of stack, the file's own failure.
  if (err instanceof RangeError && /call stack/i.test(message)) return `${codeFile(label, file)}: the code nests deeper than TypeScript's parser can follow: write it as a few named steps`;
  return `${codeFile(label, file)}: the tokeniser failed (${message.split('\n')[0].slice(0, 200)})`;
}

/** The tokens of every file, or why the first file that cannot be read cannot; `reading(file)` is told each file before it starts. */
export function readFiles(files: ReadonlyMap<string, string>, entry: string, label: string, reading: (file: string) => void = () => undefined): Read | Unreadable {
  const streams: Read[] = [];
  // The line of the joined text where each file's own first line is (joinFiles: a line naming it, then the file; a blank line between files).
  let line = 1;
  for (const file of joinOrder(files, entry)) {
    reading(file);
    const text = files.get(file)!.replace(/\r\n?/g, '\n');
    let tokens: string[];
    let spans: Int32Array<ArrayBuffer>;
    try {
      ({ tokens, spans } = tokenise(text));
    } catch (err) {
      return { problem: unreadable(label, file, err), refused: err instanceof TooDeepError };
    }
    for (let i = 0; i < spans.length; i += 4) {
      spans[i] += line;
      spans[i + 2] += line;
    }
    streams.push({ ids: tokenIds(tokens), spans });
    line += text.split('\n').length + 2;
  }
  const count = streams.reduce((sum, s) => sum + s.ids.length, 0);
  const out: Read = { ids: new Int32Array(count), spans: new Int32Array(4 * count) };
  let at = 0;
  for (const s of streams) {
    out.ids.set(s.ids, at);
    out.spans.set(s.spans, 4 * at);
    at += s.ids.length;
  }
  return out;
}
