/**
 * Builds the type check's startup snapshot (lib/typecheck/snapshot.ts): run as
 * `node --snapshot-blob FILE --build-snapshot snapshotBuild.js`, with the path of typescript.js,
 * the compiler options, the folders it may read and the harness modules (JSON) in the environment.
 * It leaves on globalThis TypeScript itself and every file a program under those options reads
 * besides a submission's own (the ES library's and Node's declarations, the harness modules and
 * what they import), parsed and bound: what each checking process spent most of its time on.
 *
 * Plain JavaScript that requires built-in modules only: a snapshot's builder cannot load packages,
 * so typescript.js (a single CommonJS file) is evaluated here as Node's loader would.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const tsFile = process.env.ATTENTION_SNAPSHOT_TYPESCRIPT;
const optionsJson = process.env.ATTENTION_SNAPSHOT_OPTIONS;
const readableJson = process.env.ATTENTION_SNAPSHOT_READABLE;
const rootsJson = process.env.ATTENTION_SNAPSHOT_ROOTS;
if (!tsFile || !optionsJson || !readableJson || !rootsJson) {
  throw new Error('snapshotBuild.js: ATTENTION_SNAPSHOT_TYPESCRIPT, ATTENTION_SNAPSHOT_OPTIONS, ATTENTION_SNAPSHOT_READABLE and ATTENTION_SNAPSHOT_ROOTS must be set');
}
/** The folders the check's compiler may read (check.ts's READABLE): what it cannot read, this program must not hold either. */
const READABLE = JSON.parse(readableJson);
const readable = (file) => /\.(d\.)?ts$/.test(file) && READABLE.some((dir) => path.resolve(file).startsWith(dir));

const module_ = { exports: {} };
const wrapped = vm.runInThisContext(`(function (exports, require, module, __filename, __dirname) {${fs.readFileSync(tsFile, 'utf8')}\n})`, { filename: tsFile });
wrapped.call(module_.exports, module_.exports, require, module_, tsFile, path.dirname(tsFile));
const ts = module_.exports;

const options = JSON.parse(optionsJson);
// An empty module and the harness modules as the roots: the program then reads exactly the default
// library, the `types` packages and the harness's files, which every check reads besides the
// submission's own.
const ROOT = path.join(path.dirname(tsFile), '__snapshot_root__.ts');
const HARNESS = JSON.parse(rootsJson).filter(readable);
const root = ts.createSourceFile(ROOT, 'export {};\n', ts.ScriptTarget.Latest, false);
const host = ts.createCompilerHost(options);
const getSourceFile = host.getSourceFile.bind(host);
const fileExists = host.fileExists.bind(host);
const readFile = host.readFile.bind(host);
host.getSourceFile = (file, ...rest) => (file === ROOT ? root : readable(file) ? getSourceFile(file, ...rest) : undefined);
host.fileExists = (file) => file === ROOT || (readable(file) && fileExists(file));
host.readFile = (file) => (readable(file) ? readFile(file) : undefined);
const program = ts.createProgram({ rootNames: [ROOT, ...HARNESS], options, host });
// Binds every file, as a check does first.
program.getTypeChecker();

globalThis.__attentionTypeCheckSnapshot = {
  ts,
  typescriptFile: tsFile,
  optionsJson,
  readableJson,
  files: new Map(program.getSourceFiles().filter((f) => f.fileName !== ROOT).map((f) => [f.fileName, f])),
};
