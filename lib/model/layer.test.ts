import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** lib/model is the bottom layer of the case model: it imports none of what orchestrates grading, and no reference code (lib/ ships to students). */
const ABOVE = ['lib/grading', 'lib/sandbox', 'lib/report', 'lib/diagnosis', 'lib/batch', 'reference'];
const ROOT = path.join(__dirname, '..', '..');

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|require\(['"]([^'"]+)['"]\)/g)].map((m) => m[1] ?? m[2]);
}

describe('lib/model', () => {
  const files = fs.readdirSync(__dirname).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

  it('imports nothing from the layers above it', () => {
    const upward = files.flatMap((file) => importsOf(path.join(__dirname, file))
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => path.relative(ROOT, path.resolve(__dirname, spec)))
      .filter((target) => ABOVE.some((dir) => target === dir || target.startsWith(`${dir}/`)))
      .map((target) => `${file} → ${target}`));
    expect(upward).toEqual([]);
  });

  // The entry points (scripts/, tests/, adapters/: npm test's way into a submission) and what
  // orchestrates (lib/grading, lib/batch, lib/bench) may import lib/grading; nothing else does.
  it('lib/grading is reached only by entry points and what orchestrates: the sandbox, diagnosis and reports import the model, not it', () => {
    const BELOW = ['lib/sandbox', 'lib/diagnosis', 'lib/report', 'lib/similarity', 'lib/typecheck', 'lib/text', 'lib/intake', 'lib/late'];
    const under = (dir: string): string[] => fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? under(path.join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path.join(dir, e.name)] : []);
    const upward = BELOW.flatMap(under).flatMap((file) => importsOf(path.join(ROOT, file))
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => path.relative(ROOT, path.resolve(ROOT, path.dirname(file), spec)))
      .filter((target) => target === 'lib/grading' || target.startsWith('lib/grading/'))
      .map((target) => `${file} → ${target}`));
    expect(upward).toEqual([]);
  });

  it('the check sees an import upward', () => {
    const probe = path.join(__dirname, 'fixtures.ts');
    expect(importsOf(probe).length).toBeGreaterThan(0);
    expect(importsOf(path.join(ROOT, 'lib', 'grading', 'grade.ts')).some((spec) => spec.startsWith('../sandbox/'))).toBe(true);
  });
});
