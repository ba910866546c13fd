/**
 * Flag parsing for the command-line entry points: `--name value`, `--name=value`, boolean `--name`,
 * `--name [value]` for a flag whose value has a default, and `--help`. Every command's usage errors
 * go through here, so each gets the same help: a misspelt flag is answered with the flag it is
 * nearest to, a flag that npm kept for itself (`npm run grade --html page.html`, no `--`) with the
 * command as it was meant (lib/npmKept.ts), and the usage follows on a line of its own, exit 2.
 */
import { flagsNpmKept, npmKeptLine, scriptOf, type FlagKind } from './npmKept';
import { meantWords } from './text/typo';

/** `optional`: a string that may be left out (`--html` alone), given as `true` then. */
export type { FlagKind } from './npmKept';
export type FlagValues<S extends Record<string, FlagKind>> = {
  [K in keyof S]?: S[K] extends 'boolean' ? boolean : S[K] extends 'number' ? number : S[K] extends 'optional' ? string | true : string;
};

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface ParseContext {
  /** The npm script being run (`grade`): whether npm kept a flag of it for itself is read from `env`. */
  script?: string;
  env?: NodeJS.ProcessEnv;
}

/** Hyphens, dashes and the minus sign a flag may be typed or pasted with. */
const DASHES = /^[-\u2010-\u2015\u2212]+/;

/** `did you mean --a or --b?` for a word meant as one of the flags, '' when it is near none. */
function didYouMean(typed: string, flags: readonly string[]): string {
  const meant = meantWords(typed.replace(DASHES, '').split('=')[0].toLowerCase().replace(/_/g, '-'), flags);
  return meant.length ? `: did you mean ${meant.map((f) => `--${f}`).join(' or ')}?` : '';
}

export function parseFlagsOrThrow<S extends Record<string, FlagKind>>(argv: string[], spec: S, context: ParseContext = {}): FlagValues<S> {
  const flags = Object.keys(spec);
  const values: Record<string, unknown> = {};
  /** Arguments no flag claimed, with the boolean flag just before each (`--reference x`). */
  const loose: { arg: string; after?: string }[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const match = /^--([a-z][a-z0-9-]*)(?:=([\s\S]*))?$/.exec(arg);
    if (!match) {
      if (DASHES.test(arg) && arg !== '-') throw new UsageError(`unknown flag ${arg}${didYouMean(arg, flags)}`);
      const previous = /^--([a-z][a-z0-9-]*)$/.exec(argv[i - 1] ?? '')?.[1];
      loose.push({ arg, after: previous !== undefined && spec[previous] === 'boolean' ? previous : undefined });
      continue;
    }
    const [, name, inline] = match;
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown flag --${name}${didYouMean(name, flags)}`);
    rest.push(arg);
    if (kind === 'boolean') {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
      values[name] = true;
      continue;
    }
    if (kind === 'optional' && inline === undefined && (argv[i + 1] === undefined || argv[i + 1].startsWith('-'))) {
      values[name] = true;
      continue;
    }
    const raw = inline ?? argv[++i];
    if (raw === undefined || raw === '' || (inline === undefined && raw.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    if (inline === undefined) rest.push(raw);
    if (kind === 'number') {
      const n = Number(raw);
      if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} needs a positive number, got "${raw}"`);
      values[name] = n;
    } else values[name] = raw;
  }
  const kept = flagsNpmKept(context.script, spec, argv, context.env ?? process.env);
  const npmLine = npmKeptLine(context.script ?? '', kept, loose.map((l) => l.arg), rest);
  // A flag whose value npm kept or lost cannot be graded with; one that is only on is said (parseFlags).
  if (npmLine && (loose.length > 0 || kept.some((k) => k.kind !== 'boolean'))) throw new UsageError(npmLine);
  if (loose.length > 0) {
    const { arg, after } = loose[0];
    const why = after ? ` (--${after} takes no value)` : didYouMean(arg, flags.filter((f) => f === arg.toLowerCase().replace(/_/g, '-')));
    throw new UsageError(`unexpected argument "${arg}"${why}`);
  }
  return values as FlagValues<S>;
}

/** A usage error as every command prints it: the problem on its line, the usage on the next. */
export const usageLines = (problem: string, usage: string): string => `${problem}\nusage: ${usage}`;

/** Prints the problem and the usage (usageLines) and exits 2. */
export function exitWithUsage(problem: string, usage: string): never {
  console.error(usageLines(problem, usage));
  process.exit(2);
}

/**
 * parseFlagsOrThrow for an entry point whose usage starts `npm run <script>`: `--help` (or `-h`)
 * prints `help` (the usage line when there is none) and exits 0; a usage error prints usageLines,
 * exit 2. A boolean flag npm kept for itself is said on one line, and the command goes on: npm may
 * have it from a setting of the user's (an .npmrc), not from this command line.
 */
export function parseFlags<S extends Record<string, FlagKind>>(argv: string[], spec: S, usage: string, help?: string): FlagValues<S> {
  if (argv.some((arg) => arg === '--help' || arg === '-h')) {
    console.log(help ?? `usage: ${usage}`);
    process.exit(0);
  }
  const script = scriptOf(usage);
  try {
    const values = parseFlagsOrThrow(argv, spec, { script });
    const npmLine = npmKeptLine(script ?? '', flagsNpmKept(script, spec, argv, process.env), [], argv);
    if (npmLine) console.error(npmLine);
    return values;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    exitWithUsage(err.message, usage);
  }
}
