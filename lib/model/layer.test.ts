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

  it('the check sees an import upward', () => {
    const probe = path.join(__dirname, 'caseBuild.ts');
    expect(importsOf(probe).length).toBeGreaterThan(0);
    expect(importsOf(path.join(ROOT, 'lib', 'grading', 'grade.ts')).some((spec) => spec.startsWith('../sandbox/'))).toBe(true);
  });
});
