/**
 * Attacks on the similarity check with text built to break the parser it is read with (issue 41):
 * nesting past what a recursive parser may be handed, of each kind TypeScript's parser recurses
 * on (brackets, template spans, prefix operators, right-nested operators), in a helper file of a
 * submission, and chains written one link a line, which a count that ended at each line break
 * once let through to the parser's stack. Each is refused by the one nesting bound
 * (lib/text/nesting.ts) with the load check's words, and read in a child process (lib/similarity/
 * readers.ts): the run completes, the submission has a row that names the file and says why, and
 * every other submission is compared. In every setting the grader runs in (as root; as root
 * without CAP_SYS_ADMIN, as in Docker; as an unprivileged user), `npm run similarity` says the same.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { runSimilarity } from '../../lib/similarity/run';
import { NESTING_LIMIT } from '../../lib/text/nesting';
import { tempDir } from '../grader/materialize';
import { withJunk } from '../similarity/pureCode';
import { WITHOUT_SYS_ADMIN } from '../simulatedSettings';

/** Each kind of nesting, this many levels deep: far past the limit, within the intake's 1 MiB a file. */
const LEVELS = 60_000;
const DEEP: Record<string, [open: string, close: string]> = {
  parentheses: ['(', ')'], brackets: ['[', ']'], objects: ['{ a: ', ' }'], calls: ['f(', ')'], templates: ['`${', '}`'],
  negations: ['!', ''], minus_signs: ['- ', ''], typeofs: ['typeof ', ''], news: ['new ', ''], assignments: ['a = ', ''],
  conditionals: ['a ? b : ', ''], arrows: ['x => ', ''], powers: ['a ** ', ''], generics: ['A<', '>'], mixed: ['!(-[', '])'],
};
/** Chains one link a line: the parser's recursion goes on past a line break, and so does the bound's count. */
const CHAINS: Record<string, string> = {
  conditional_lines: `x = ${'a ?\nb :\n'.repeat(30_000)}c;`,
  if_lines: `${'if (a)\n'.repeat(30_000)}b();`,
  arrow_lines: `x = ${'y =>\n'.repeat(30_000)}1;`,
};

const reference = fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8');
const HONEST: Record<string, string> = {
  reference,
  copy: withJunk(reference, 7),
  plain_loops: fs.readFileSync(path.join(PROJECT_ROOT, 'selftest', 'catalogue', 'correct', 'plain_loops.ts'), 'utf8'),
};

/** The submissions: each deep one a correct index.ts with the nesting at line 3 of its helpers.ts; `kinds` of them only if given. */
function layOut(dir: string, kinds?: readonly string[]): void {
  const write = (name: string, files: Record<string, string>) => {
    fs.mkdirSync(path.join(dir, name), { recursive: true, mode: 0o755 });
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name, file), text, { mode: 0o644 });
  };
  for (const [name, code] of Object.entries(HONEST)) write(name, { 'index.ts': code });
  const type = (kind: string) => kind === 'generics';
  for (const [kind, [open, close]] of Object.entries(DEEP).filter(([k]) => !kinds || kinds.includes(k))) {
    const body = type(kind) ? `let v: ${open.repeat(LEVELS)}B${close.repeat(LEVELS)};` : `v = ${open.repeat(LEVELS)}1${close.repeat(LEVELS)};`;
    write(`deep_${kind}`, { 'index.ts': HONEST.plain_loops, 'helpers.ts': `// a helper\nlet v;\n${body}\n` });
  }
  for (const [kind, text] of Object.entries(CHAINS).filter(([k]) => !kinds || kinds.includes(k))) write(`chain_${kind}`, { 'index.ts': HONEST.plain_loops, 'helpers.ts': `// a helper\n${text}\n` });
}

/** What each submission that cannot be read must say: its file, and the place or the reason. */
const expectedProblems = (kinds?: readonly string[]): Record<string, RegExp> => Object.fromEntries([
  ...Object.keys(DEEP).map((kind) => [kind, `deep_${kind}`, new RegExp(`^could not be read: nesting too deep at deep_${kind}/helpers\\.ts:3:\\d+: more than ${NESTING_LIMIT} brackets`)]),
  ...Object.keys(CHAINS).map((kind) => [kind, `chain_${kind}`, new RegExp(`^could not be read: nesting too deep at chain_${kind}/helpers\\.ts:\\d+:\\d+: more than ${NESTING_LIMIT} brackets`)]),
].filter(([kind]) => !kinds || kinds.includes(kind as string)).map(([, name, pattern]) => [name, pattern]));
/** What the command runs on in each setting: a kind of each class (the run above has them all). */
const IN_SETTINGS = ['parentheses', 'negations', 'if_lines'];

describe('a submission nested past what a parser may be handed', () => {
  const dir = tempDir('similarity-nesting');
  const submissions = path.join(dir, 's');
  layOut(submissions);

  it('the run completes; each such submission is a row naming its file and why; everyone else is compared', async () => {
    const outcome = await runSimilarity({ submissions, out: path.join(dir, 'o') });
    const problems = Object.fromEntries(outcome.notCompared.map((s) => [s.name, s.problem]));
    const expected = expectedProblems();
    expect(Object.keys(problems).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, pattern] of Object.entries(expected)) expect(problems[name], name).toMatch(pattern);
    expect(outcome.compared).toBe(Object.keys(HONEST).length);
    expect(outcome.flagged.map((p) => `${p.a} · ${p.b}`)).toEqual(['copy · reference']);
    const html = fs.readFileSync(outcome.files.html, 'utf8');
    for (const name of Object.keys(expected)) expect(html).toContain(`<li>${name}: could not be read: nesting too deep at ${name}/helpers.ts:`);
  });

  const IS_ROOT = process.getuid?.() === 0;
  /** A uid no account and no other test uses (attacks/settings.test.ts uses another). */
  const UNPRIVILEGED_UID = 63_019;
  const SETTINGS: Record<string, string[]> = {
    'this machine': [],
    ...(IS_ROOT ? {
      'root without CAP_SYS_ADMIN (Docker)': WITHOUT_SYS_ADMIN,
      'an unprivileged user': ['setpriv', `--reuid=${UNPRIVILEGED_UID}`, `--regid=${UNPRIVILEGED_UID}`, '--clear-groups', '--'],
    } : {}),
  };
  const setprivWorks = spawnSync('setpriv', ['--version']).status === 0;

  const some = path.join(dir, 'some');
  layOut(some, IN_SETTINGS);
  for (const [setting, prefix] of Object.entries(SETTINGS)) {
    it.skipIf(prefix.length > 0 && !setprivWorks)(`npm run similarity as ${setting}: exit 0, a line for each, the files written`, async () => {
      const out = path.join(dir, `cli-${setting.replace(/\W+/g, '-')}`);
      fs.mkdirSync(out, { recursive: true });
      if (prefix.length) {
        // The submissions readable, the output writable, by the unprivileged user; the temporary folder itself keeps its mode.
        fs.chmodSync(dir, 0o755);
        fs.chownSync(out, UNPRIVILEGED_UID, UNPRIVILEGED_UID);
      }
      const [file, ...args] = [...prefix, process.execPath, RUN_TS, 'scripts/similarity.ts', '--submissions', some, '--out', out];
      const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(file, args, { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 600_000 }, (err, stdout, stderr) => {
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
        });
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^compared ${Object.keys(HONEST).length} submissions: 1 pair\\(s\\) at or above 35%, .*; handout subtracted: student/ as committed in [0-9a-f]+$`, 'm'));
      for (const [name, pattern] of Object.entries(expectedProblems(IN_SETTINGS))) {
        const line = run.stdout.split('\n').find((l) => l.startsWith(`not compared: ${name}: `));
        expect(line?.slice(`not compared: ${name}: `.length), name).toMatch(pattern);
      }
      expect(fs.existsSync(path.join(out, 'similarity.csv')) && fs.existsSync(path.join(out, 'similarity.html'))).toBe(true);
    }, 600_000);
  }
});
