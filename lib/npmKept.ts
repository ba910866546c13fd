/**
 * `npm run grade --html page.html`: without the `--` that ends npm's own options, npm takes
 * `--html` for a setting of its own and hands the script `page.html` alone; `--late-policy=…` it
 * keeps whole, and `--reference` leaves no trace in the script's arguments at all. The script can
 * tell from its environment: npm names the script it runs (npm_lifecycle_event) and passes each
 * setting it was given as npm_config_<name> (dashes as underscores, `true` for a bare flag).
 */
/** How a command's flag takes its value (lib/cli.ts): a switch, a text, a number, or a text that may be left out. */
export type FlagKind = 'boolean' | 'string' | 'number' | 'optional';
import { meantWords } from './text/typo';

export interface KeptFlag {
  flag: string;
  kind: FlagKind;
  /** What npm took as its value: `true` when the flag was bare (its value, if any, reached the script alone). */
  value: string;
  /** The flag as typed, when it was a slip of `flag` (`--submision`). */
  typed?: string;
}

/** The script's name in a usage line (`npm run grade -- …` → `grade`), undefined for a usage of another form. */
export const scriptOf = (usage: string): string | undefined => /^npm run (\S+)/.exec(usage)?.[1];

/**
 * The command's flags that npm kept for itself when it ran `script`: set in npm's settings but not
 * among the arguments the script got, and bare settings that are a slip of one of them. None unless
 * npm is running this very script.
 */
export function flagsNpmKept(script: string | undefined, spec: Readonly<Record<string, FlagKind>>, argv: readonly string[], env: NodeJS.ProcessEnv): KeptFlag[] {
  if (script === undefined || env.npm_lifecycle_event !== script) return [];
  const given = new Set(argv.map((arg) => /^--([^=]+)/.exec(arg)?.[1]));
  const flags = Object.keys(spec).filter((flag) => flag !== 'help' && !given.has(flag));
  const kept: KeptFlag[] = flags.flatMap((flag) => {
    const value = env[`npm_config_${flag.replace(/-/g, '_')}`];
    return value === undefined || value === '' ? [] : [{ flag, kind: spec[flag], value }];
  });
  for (const [key, value] of Object.entries(env)) {
    const typed = /^npm_config_(.+)$/.exec(key)?.[1].replace(/_/g, '-');
    if (typed === undefined || value !== 'true' || Object.hasOwn(spec, typed)) continue;
    const meant = meantWords(typed, flags);
    if (meant.length === 1 && !kept.some((k) => k.flag === meant[0])) kept.push({ flag: meant[0], kind: spec[meant[0]], value, typed });
  }
  return kept;
}

const shellWord = (word: string): string => (/^[\w./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/**
 * The command as it was meant, `--` in place: npm's kept flags, each with its value (a bare flag
 * that takes one gets the argument that reached the script alone, when that pairing is certain,
 * else `…`), then the arguments the script got. `loose` are those of them no flag of the script
 * claimed (the values npm's kept flags lost), `rest` the others.
 */
export function meantCommand(script: string, kept: readonly KeptFlag[], loose: readonly string[], rest: readonly string[]): string {
  const waiting = kept.filter((k) => k.kind !== 'boolean' && k.value === 'true');
  // npm does not say in which order it met the flags: only one flag and one value pair for sure.
  const paired = waiting.length === 1 && loose.length === 1 ? loose[0] : undefined;
  const words = kept.flatMap((k) => {
    if (k.kind === 'boolean') return [`--${k.flag}`];
    if (k.value !== 'true') return [`--${k.flag}`, shellWord(k.value)];
    if (paired !== undefined) return [`--${k.flag}`, shellWord(paired)];
    return k.kind === 'optional' ? [`--${k.flag}`] : [`--${k.flag}`, '…'];
  });
  // Unpaired, the loose arguments are the kept flags' values, which the … stand for.
  const unclaimed = paired === undefined && waiting.length === 0 ? loose : [];
  return ['npm run', script, '--', ...words, ...[...rest, ...unclaimed].map(shellWord)].join(' ');
}

/** The line that says so, or undefined when npm kept none of the command's flags. */
export function npmKeptLine(script: string, kept: readonly KeptFlag[], loose: readonly string[], rest: readonly string[]): string | undefined {
  if (kept.length === 0) return undefined;
  const flags = kept.map((k) => `--${k.typed ?? k.flag}`);
  const names = flags.length === 1 ? flags[0] : `${flags.slice(0, -1).join(', ')} and ${flags.at(-1)}`;
  return `npm took ${names} as its own setting${flags.length === 1 ? '' : 's'} (the -- after npm run ${script} is missing): did you mean ${meantCommand(script, kept, loose, rest)}`;
}
