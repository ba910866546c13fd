import { describe, expect, it } from 'vitest';
import { gradeFlagKinds } from './batch/options';
import { parseFlagsOrThrow, usageLines, type FlagKind } from './cli';
import { flagsNpmKept, npmKeptLine } from './npmKept';
import { typoDistance } from './text/typo';

/** The flags of commands other than grade, as their scripts declare them. */
const OTHER_COMMANDS: Record<string, Record<string, FlagKind>> = {
  merge: { out: 'string', help: 'boolean', roster: 'string', assignment: 'string' },
  similarity: { submissions: 'string', out: 'string', base: 'string', threshold: 'number' },
  'fetch-submissions': { repositories: 'string', out: 'string', deadline: 'string', jobs: 'number', help: 'boolean' },
  gradescope: { out: 'string', node: 'string', 'late-policy': 'string' },
  fixtures: { check: 'boolean' },
};
const COMMANDS: Record<string, Record<string, FlagKind>> = { grade: gradeFlagKinds(), ...OTHER_COMMANDS };

/** Every slip of one keystroke in `word`: a letter left out, doubled, replaced, or two swapped. */
function slips(word: string): string[] {
  const found = new Set<string>();
  for (let i = 0; i < word.length; i++) {
    found.add(word.slice(0, i) + word.slice(i + 1));
    found.add(word.slice(0, i) + word[i] + word.slice(i));
    found.add(word.slice(0, i) + (word[i] === 'q' ? 'z' : 'q') + word.slice(i + 1));
    if (i + 1 < word.length) found.add(word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2));
  }
  found.delete(word);
  return [...found].filter((w) => /^[a-z]/.test(w));
}

const problem = (argv: string[], spec: Record<string, FlagKind>, env: NodeJS.ProcessEnv = {}, script = 'grade'): string => {
  try {
    parseFlagsOrThrow(argv, spec, { script, env });
  } catch (err) {
    return (err as Error).message;
  }
  return '';
};
const suggested = (message: string): string[] => [.../did you mean (.*)\?$/.exec(message)?.[1].matchAll(/--([a-z-]+)/g) ?? []].map((m) => m[1]);

describe('a misspelt flag: did you mean', () => {
  for (const [command, spec] of Object.entries(COMMANDS)) {
    it(`${command}: every one-keystroke slip of each flag is answered with that flag (or as near a one)`, () => {
      const flags = Object.keys(spec);
      let checked = 0;
      for (const flag of flags) {
        for (const slip of slips(flag).filter((s) => !flags.includes(s))) {
          const message = problem([`--${slip}`, 'x'], spec);
          const meant = suggested(message);
          expect(message, slip).toMatch(new RegExp(`^unknown flag --${slip}: did you mean `));
          // Never a flag further than the one meant; that one itself unless as near ones fill the list.
          for (const other of meant) expect(typoDistance(slip, other), `${slip} → ${other}`).toBeLessThanOrEqual(typoDistance(slip, flag));
          if (!meant.includes(flag)) expect(meant, slip).toHaveLength(3);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(flags.length * 3);
    });
  }

  it.each([
    ['--Submission', 'submission'], ['-submission', 'submission'], ['—submission', 'submission'], ['–out', 'out'],
    ['--carry_forward', 'carry-forward'], ['--HTML=page.html', 'html'], ['--sub', 'submission or --submissions'],
    ['--late', 'late-policy'], ['--html-file', 'html'], ['--submisions', 'submissions'],
  ])('%s: did you mean --%s', (arg, meant) => {
    expect(problem([arg], gradeFlagKinds())).toBe(`unknown flag ${arg}: did you mean --${meant}?`);
  });

  it('a word near no flag gets no guess; a bare flag name and a boolean given a value are named', () => {
    expect(problem(['--frobnicate'], gradeFlagKinds())).toBe('unknown flag --frobnicate');
    expect(problem(['submission', 'x'], gradeFlagKinds())).toBe('unexpected argument "submission": did you mean --submission?');
    expect(problem(['--reference', 'x'], gradeFlagKinds())).toBe('unexpected argument "x" (--reference takes no value)');
    expect(problem(['page.html'], gradeFlagKinds())).toBe('unexpected argument "page.html"');
  });
});

describe('a flag npm kept for itself (no -- after npm run <script>)', () => {
  const npm = (settings: Record<string, string>, script = 'grade'): NodeJS.ProcessEnv => ({ npm_lifecycle_event: script, ...settings });
  const valued = Object.entries(gradeFlagKinds()).filter(([, kind]) => kind !== 'boolean');

  it.each(valued)('--%s VALUE: npm keeps the flag, the value arrives alone; the command as meant is named', (flag) => {
    const env = npm({ [`npm_config_${flag.replace(/-/g, '_')}`]: 'true' });
    expect(problem(['my value'], gradeFlagKinds(), env)).toBe(
      `npm took --${flag} as its own setting (the -- after npm run grade is missing): did you mean npm run grade -- --${flag} 'my value'`,
    );
    // --flag=value: npm keeps both, nothing arrives, and the run must not go on without it.
    expect(problem([], gradeFlagKinds(), npm({ [`npm_config_${flag.replace(/-/g, '_')}`]: '7' }))).toMatch(new RegExp(`did you mean npm run grade -- --${flag} 7$`));
  });

  it('several flags kept: the values npm lost cannot be paired for sure, so they are left as …', () => {
    const env = npm({ npm_config_json: 'true', npm_config_submission: 'true', npm_config_reference: 'true' });
    expect(problem(['o.json', 'x'], gradeFlagKinds(), env)).toBe(
      'npm took --submission, --reference and --json as its own settings (the -- after npm run grade is missing): did you mean npm run grade -- --submission … --reference --json …',
    );
    expect(problem(['page.html', '--verbose'], { html: 'optional', verbose: 'boolean' }, npm({ npm_config_html: 'true' }))).toMatch(/did you mean npm run grade -- --html page\.html --verbose$/);
  });

  it('a boolean flag kept alone is said, not refused: npm may have it from an .npmrc', () => {
    const env = npm({ npm_config_reference: 'true' });
    expect(problem([], gradeFlagKinds(), env)).toBe('');
    const kept = flagsNpmKept('grade', gradeFlagKinds(), [], env);
    expect(npmKeptLine('grade', kept, [], [])).toBe('npm took --reference as its own setting (the -- after npm run grade is missing): did you mean npm run grade -- --reference');
    // Given on the command line too, it is not missing.
    expect(flagsNpmKept('grade', gradeFlagKinds(), ['--reference'], env)).toEqual([]);
  });

  it('a slip npm kept for itself: the command as meant, the flag spelt right', () => {
    expect(problem(['x'], gradeFlagKinds(), npm({ npm_config_submision: 'true', npm_config_nodedir: '/usr' }))).toBe(
      'npm took --submision as its own setting (the -- after npm run grade is missing): did you mean npm run grade -- --submission x',
    );
  });

  it('only when npm runs this very script', () => {
    const settings = { npm_config_html: 'true' };
    expect(problem(['page.html'], gradeFlagKinds(), settings)).toBe('unexpected argument "page.html"');
    expect(problem(['page.html'], gradeFlagKinds(), npm(settings, 'test'))).toBe('unexpected argument "page.html"');
    expect(problem(['x'], OTHER_COMMANDS.similarity, npm({ npm_config_base: 'true' }, 'similarity'), 'similarity')).toMatch(/did you mean npm run similarity -- --base x$/);
  });
});

describe('flag values', () => {
  const spec = { html: 'optional', verbose: 'boolean', out: 'string' } as const;
  it('an optional value: alone, given, or followed by another flag', () => {
    expect(parseFlagsOrThrow(['--html'], spec)).toEqual({ html: true });
    expect(parseFlagsOrThrow(['--html', 'p.html', '--verbose'], spec)).toEqual({ html: 'p.html', verbose: true });
    expect(parseFlagsOrThrow(['--html', '--verbose'], spec)).toEqual({ html: true, verbose: true });
    expect(parseFlagsOrThrow(['--html=p.html'], spec)).toEqual({ html: 'p.html' });
    expect(problem(['--html='], spec)).toBe('--html needs a value');
    expect(problem(['--out'], spec)).toBe('--out needs a value');
  });
});

it('a usage error: the problem on its line, the usage on the next', () => {
  expect(usageLines('unknown flag --x', 'npm run grade -- [--json FILE]').split('\n')).toEqual(['unknown flag --x', 'usage: npm run grade -- [--json FILE]']);
});
