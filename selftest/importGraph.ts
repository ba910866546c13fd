/**
 * The project's own import graph, read as TypeScript reads it: the architecture checks and the
 * guarantee list's title lookup both follow imports, and a test file cannot be imported for a
 * helper without running its tests, so the reading lives here.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../lib/paths';

/** The project files a module imports (relative specifiers resolved as the project resolves them), static and `import()` alike. */
export function importsOf(file: string, text = fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8')): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map((f) => f.fileName).filter((spec) => spec.startsWith('.')).flatMap((spec) => {
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '');
    const found = [`${base}.ts`, `${base}.mts`, `${base}/index.ts`, base].find((f) => fs.existsSync(path.join(PROJECT_ROOT, f)) && fs.statSync(path.join(PROJECT_ROOT, f)).isFile());
    return found ? [found] : [];
  });
}
