/**
 * The reading child (readers.ts): one submission at a time, its files to tokens (read.ts), told to
 * the parent file by file so that a stop names the file it stopped on. It runs no submission's
 * code; it is a process of its own so that whatever a file does to TypeScript's parser (take it
 * past its stack or its heap, keep it busy) ends this process, never the run.
 */
import { readFiles } from './read';

/** One submission, as readers.ts sends it. */
export interface ReadRequest {
  id: number;
  label: string;
  entry: string;
  files: [string, string][];
}

process.on('message', (request: ReadRequest) => {
  const read = readFiles(new Map(request.files), request.entry, request.label, (file) => process.send!({ id: request.id, file }));
  process.send!('problem' in read ? { id: request.id, ...read } : { id: request.id, ids: read.ids, spans: read.spans });
});
// Imports done (TypeScript loaded): the parent starts timing submissions from here.
process.send!({ ready: true });
