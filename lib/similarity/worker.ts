/** The tokenising worker (collect.ts): one submission's text in, its tokens out. */
import { parentPort } from 'node:worker_threads';
import { tokenise } from './tokens';

parentPort!.on('message', ({ id, text }: { id: number; text: string }) => {
  parentPort!.postMessage({ id, ...tokenise(text) });
});
parentPort!.postMessage('ready');
