/**
 * A ts-node transpiler (tsconfig.json "ts-node"."transpiler") that does what ts-node's own
 * transpile-only mode does, and keeps each file's output on disk keyed by a hash of everything
 * that shapes it: a second start of `npm run grade` (or of the self-tests' many child scripts)
 * then reads the project's JavaScript instead of transpiling ~100 modules again, about 1.5 s of
 * CPU per start on a 2-core machine. Plain JavaScript because ts-node loads it before it can load
 * TypeScript files.
 */
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const CACHE = path.join(__dirname, '..', 'node_modules', '.cache', 'ts-node-transpiled');
const version = (pkg) => JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve(pkg)), '..', 'package.json'), 'utf8')).version;

exports.create = function create({ service, nodeModuleEmitKind }) {
  const ts = require('typescript');
  // ts-node's own transpile-only function (not among its package exports, so reached by path).
  const { createTsTranspileModule } = require(path.join(path.dirname(require.resolve('ts-node')), 'ts-transpile-module.js'));
  const compilerOptions = service.config.options;
  const transpileModule = createTsTranspileModule(ts, { compilerOptions, reportDiagnostics: true });
  const emitKind = nodeModuleEmitKind === 'nodeesm' ? 'module' : 'commonjs';
  const salt = JSON.stringify([version('typescript'), version('ts-node'), compilerOptions, emitKind]);
  return {
    transpile(code, { fileName }) {
      const key = crypto.createHash('sha256').update(salt).update('\0').update(fileName).update('\0').update(code).digest('hex');
      const file = path.join(CACHE, key.slice(0, 2), `${key}.json`);
      try {
        return JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch {
        // Not cached yet (or unreadable): transpile it.
      }
      const result = transpileModule(code, { fileName }, emitKind);
      // Output with diagnostics is not kept: ts-node reports them on every start, as without a cache.
      if (!result.diagnostics || result.diagnostics.length === 0) {
        const output = { outputText: result.outputText, sourceMapText: result.sourceMapText };
        try {
          fs.mkdirSync(path.dirname(file), { recursive: true });
          const staging = `${file}.${process.pid}.tmp`;
          fs.writeFileSync(staging, JSON.stringify(output));
          fs.renameSync(staging, file); // atomic: a concurrent start reads all of it or nothing
        } catch {
          // A read-only node_modules: run uncached.
        }
      }
      return result;
    },
  };
};
