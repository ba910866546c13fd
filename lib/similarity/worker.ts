/** The tokenising worker (collect.ts): one submission's text in, its tokens out. */
import { parentPort } from 'node:worker_threads';
import { tokenIds } from './fingerprints';
import { tokenise } from './tokens';

parentPort!.on('message', ({ id, text }: { id: number; text: string }) => {
  const { tokens, spans } = tokenise(text);
  const ids = tokenIds(tokens);
  parentPort!.postMessage({ id, ids, spans }, [ids.buffer, spans.buffer]);
});
parentPort!.postMessage('ready');
