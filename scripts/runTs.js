/**
 * How the project's TypeScript scripts run: `node scripts/runTs.js scripts/grade.ts ARGS` (what
 * `npm run grade` runs), or `node -r ./scripts/runTs.js file.ts` for a process that only needs
 * `.ts` files to load (the grader's type check, its similarity readers).
 *
 * It does what ts-node's transpile-only mode did for them, without loading TypeScript or ts-node
 * when every file's JavaScript is already on disk: each file is transpiled once (TypeScript's
 * transpileModule, the project's tsconfig.json) and kept under node_modules/.cache/, keyed by a
 * hash of everything that shapes it. ts-node loaded TypeScript in every process for its
 * configuration alone, a quarter of a second of CPU at each start of `npm run grade` and of the
 * hundreds of processes the self-tests start (docs/benchmarks.md). Stack traces name the `.ts`
 * lines, through Node's own source maps. Plain JavaScript: it runs before any TypeScript can.
 */
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'ts-run');
/** Marks a process whose `require` loads `.ts` files (lib/assignment/lazy.ts asks). */
const REGISTERED = Symbol.for('attention.runTs');

/**
 * What every file's output depends on besides its own name and text: this loader, TypeScript's
 * version and the compiler options (tsconfig.json's `compilerOptions`; not its `include`, which a
 * handout or a Gradescope bundle rewrites). Read, not computed by TypeScript, so that a start that
 * finds everything cached never loads it.
 */
function salt() {
  const hash = crypto.createHash('sha256');
  for (const file of [__filename, require.resolve('typescript/package.json', { paths: [ROOT] })]) hash.update(fs.readFileSync(file)).update('\0');
  return hash.update(compilerOptionsText(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8'))).digest();
}

/**
 * tsconfig.json's compiler options as JSON, read as TypeScript reads the file (JSON with comments
 * and trailing commas); the whole text when it cannot be read so, or when it extends another file
 * (whose options it would need too).
 */
function compilerOptionsText(text) {
  try {
    const config = JSON.parse(withoutTrailingCommas(withoutComments(text)));
    return config.extends === undefined ? JSON.stringify(config.compilerOptions ?? null) : text;
  } catch {
    return text;
  }
}

/** Each character of `text` outside its strings handed to `outside`, which returns what to keep of it and how many characters it took. */
function scanOutsideStrings(text, outside) {
  let out = '';
  for (let i = 0; i < text.length; ) {
    if (text[i] === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      out += text.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    const [kept, taken] = outside(i);
    out += kept;
    i += taken;
  }
  return out;
}

function withoutComments(text) {
  return scanOutsideStrings(text, (i) => {
    if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      return ['', (end < 0 ? text.length : end) - i];
    }
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      return [' ', (end < 0 ? text.length : end + 2) - i];
    }
    return [text[i], 1];
  });
}

function withoutTrailingCommas(text) {
  return scanOutsideStrings(text, (i) => [text[i] === ',' && /^\s*[}\]]/.test(text.slice(i + 1)) ? '' : text[i], 1]);
}

/** TypeScript's transpiler under the project's options, loaded on the first file not cached. */
let transpiler;
function transpile(code, fileName) {
  if (!transpiler) {
    const ts = require(require.resolve('typescript', { paths: [ROOT] }));
    const config = path.join(ROOT, 'tsconfig.json');
    const read = ts.readConfigFile(config, ts.sys.readFile);
    if (read.error) throw new Error(`${config}: ${ts.flattenDiagnosticMessageText(read.error.messageText, ' ')}`);
    const { options } = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT, undefined, config);
    // `module` stays Node16: a file of this CommonJS package is emitted as CommonJS, and a dynamic
    // import() stays one (an ES module package is loaded as such), as under ts-node.
    const compilerOptions = { ...options, noEmit: false, declaration: false, sourceMap: false, inlineSourceMap: true, inlineSources: false };
    transpiler = (text, name) => {
      const output = ts.transpileModule(text, { compilerOptions, fileName: name, reportDiagnostics: true });
      const errors = output.diagnostics ?? [];
      if (errors.length) {
        const said = errors.slice(0, 5).map((d) => {
          const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
          return `${name}${at ? `:${at.line + 1}:${at.character + 1}` : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
        });
        throw new SyntaxError(`TypeScript could not transpile ${name}:\n${said.join('\n')}`);
      }
      return output.outputText;
    };
  }
  return transpiler(code, fileName);
}

function register() {
  if (process[REGISTERED]) return;
  process[REGISTERED] = true;
  // Node maps the stack's places through each file's inline source map to the `.ts` lines.
  process.setSourceMapsEnabled(true);
  const base = salt();
  // Replaces Node's own `.ts` loader where it has one (type stripping, Node 22.18 and later), which
  // runs only syntax it can erase (no enums, no parameter properties) and not this tsconfig's emit.
  Module._extensions['.ts'] = function loadTs(module, fileName) {
    const code = fs.readFileSync(fileName, 'utf8');
    // The file's name, not its folder: TypeScript's output names only the file (its source map's
    // `sources`, the module kind by extension), so a copy of the project elsewhere (a handout, a
    // Gradescope bundle, sharing this node_modules) reads the same entry.
    const key = crypto.createHash('sha256').update(base).update(path.basename(fileName)).update('\0').update(code).digest('hex');
    const kept = path.join(CACHE, key.slice(0, 2), `${key}.js`);
    let output;
    try {
      output = fs.readFileSync(kept, 'utf8');
    } catch {
      output = transpile(code, fileName);
      try {
        fs.mkdirSync(path.dirname(kept), { recursive: true });
        const staging = `${kept}.${process.pid}.tmp`;
        fs.writeFileSync(staging, output);
        fs.renameSync(staging, kept); // atomic: a concurrent start reads all of it or nothing
      } catch {
        // A read-only node_modules: runs uncached.
      }
    }
    module._compile(output, fileName);
  };
}

register();

if (require.main === module) {
  // `node scripts/runTs.js script.ts ARGS`: the script runs as the main module, with the argv it
  // would have had as `node script.ts ARGS`.
  const script = process.argv[2];
  if (!script) {
    console.error('usage: node scripts/runTs.js SCRIPT.ts [ARGS...]');
    process.exit(2);
  }
  process.argv.splice(1, 2, path.resolve(script));
  Module.runMain();
}
