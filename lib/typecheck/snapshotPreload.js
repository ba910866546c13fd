/**
 * Required first (`node --snapshot-blob FILE -r snapshotPreload.js -r scripts/runTs.js …`) by a
 * checking process started from the type check's snapshot (lib/typecheck/snapshot.ts): the
 * TypeScript the snapshot holds becomes the module `typescript`, so that check.ts uses
 * it, and with it the declaration files parsed in the snapshot, instead of loading a second copy.
 * Only when it is the same typescript.js that `require('typescript')` would load from here.
 */
'use strict';
const Module = require('node:module');

const snapshot = globalThis.__attentionTypeCheckSnapshot;
if (snapshot) {
  const file = require.resolve('typescript');
  if (file === snapshot.typescriptFile && !require.cache[file]) {
    const entry = new Module(file, module);
    entry.filename = file;
    entry.paths = Module._nodeModulePaths(require('node:path').dirname(file));
    entry.exports = snapshot.ts;
    entry.loaded = true;
    require.cache[file] = entry;
  }
}
