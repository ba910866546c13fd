/**
 * docs/guarantees.md says which test holds each guarantee, as `file`: “describe” › “it”, and is
 * only worth its name while those tests exist: a cut that moves or renames a test must move its
 * line (issue 45 cut three rounds of them). A title is looked for as written in its file (vitest's
 * placeholders included, “…” standing for words left out), or in the self-test modules the file
 * imports, where shared describes live (grader/catalogueClaims.ts for verdicts.test.ts). And every
 * test file is cited: a file that holds no listed guarantee is a guarantee nobody wrote down.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../lib/paths';
import { importsOf } from './importGraph';

/** A file's text with its strings' escaped quotes read as the quotes they are. */
const textOf = (file: string) => fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8').replace(/\\(['"`])/g, '$1');

/** `file` and the self-test modules it imports, directly or through others (project-relative). */
function withImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file) || !fs.existsSync(path.join(PROJECT_ROOT, file))) return seen;
  seen.add(file);
  for (const imported of importsOf(file)) if (imported.startsWith('selftest/')) withImports(imported, seen);
  return seen;
}

/** What is wrong with the citations of the list `text`: a file that does not exist, a title not in its file. */
function staleCitations(text: string): string[] {
  const problems: string[] = [];
  for (const line of text.split('\n').filter((l) => l.startsWith('- ') && l.includes(' — '))) {
    // The citations follow the guarantee's ' — ', one per file, separated by ' · '.
    for (const cited of line.slice(line.indexOf(' — ') + 3).split(/ · (?=`)/)) {
      const file = /^`([^`]+)`/.exec(cited)?.[1];
      if (!file) {
        problems.push(`a citation that names no file: ${cited.slice(0, 80)}`);
        continue;
      }
      if (!fs.existsSync(path.join(PROJECT_ROOT, file))) {
        problems.push(`${file}: no such file`);
        continue;
      }
      const source = [...withImports(file)].map(textOf).join('\n');
      for (const [, title] of cited.matchAll(/“([^”]*)”/g)) {
        if (!title.split('…').every((part) => source.includes(part.trim()))) problems.push(`${file}: no test “${title}”`);
      }
    }
  }
  return problems;
}

/** The project's test files (lib's units, the self-tests, the graded suite), but the assignments the self-tests grade. */
function testFiles(): string[] {
  return ['lib', 'selftest', 'tests'].flatMap((dir) =>
    fs.readdirSync(path.join(PROJECT_ROOT, dir), { recursive: true, encoding: 'utf8' })
      .map((f) => path.posix.join(dir, f.split(path.sep).join('/')))
      .filter((f) => f.endsWith('.test.ts') && !f.startsWith('selftest/assignments/')));
}

describe('docs/guarantees.md cites tests that exist', () => {
  it('every cited file exists and holds every title it is cited for', () => {
    expect(staleCitations(fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'guarantees.md'), 'utf8'))).toEqual([]);
  });

  it('cites every test file', () => {
    const list = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'guarantees.md'), 'utf8');
    const files = testFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => !list.includes(`\`${f}\``))).toEqual([]);
  });

  it('a title that is not in its file, a file that is not there and a citation without a file are each found', () => {
    const list = [
      '- A guarantee. — `selftest/grader/verdicts.test.ts`: “grader and vitest agree” › “a test nobody wrote”',
      '- Another. — `selftest/nowhere.test.ts`: “anything”',
      '- A third. — “a title without its file”',
      '- Held. — `selftest/grader/verdicts.test.ts`: “each bug is diagnosed as its own mistake…says nothing else”',
    ].join('\n');
    expect(staleCitations(list)).toEqual([
      'selftest/grader/verdicts.test.ts: no test “a test nobody wrote”',
      'selftest/nowhere.test.ts: no such file',
      'a citation that names no file: “a title without its file”',
    ]);
  });
});
