/**
 * Flag parsing for the command-line entry points: `--name value`, `--name=value` and boolean
 * `--name`, and `--help`. An unknown or malformed flag is one clear line and exit code 2.
 */
export type FlagKind = 'boolean' | 'string' | 'number';
export type FlagValues<S extends Record<string, FlagKind>> = {
  [K in keyof S]?: S[K] extends 'boolean' ? boolean : S[K] extends 'number' ? number : string;
};

export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseFlagsOrThrow<S extends Record<string, FlagKind>>(argv: string[], spec: S): FlagValues<S> {
  const values: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([a-z][a-z-]*)(?:=(.*))?$/.exec(argv[i]);
    if (!match) throw new UsageError(`unexpected argument "${argv[i]}"`);
    const [, name, inline] = match;
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown flag --${name} (known: ${Object.keys(spec).map((k) => `--${k}`).join(', ')})`);
    if (kind === 'boolean') {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
      values[name] = true;
      continue;
    }
    const raw = inline ?? argv[++i];
    if (raw === undefined || (inline === undefined && raw.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    if (kind === 'number') {
      const n = Number(raw);
      if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} needs a positive number, got "${raw}"`);
      values[name] = n;
    } else values[name] = raw;
  }
  return values as FlagValues<S>;
}

/**
 * parseFlagsOrThrow for an entry point: `--help` (or `-h`) prints `help` (the usage line when there
 * is none) and exits 0; a usage error prints one line with the usage, exit 2.
 */
export function parseFlags<S extends Record<string, FlagKind>>(argv: string[], spec: S, usage: string, help?: string): FlagValues<S> {
  if (argv.some((arg) => arg === '--help' || arg === '-h')) {
    console.log(help ?? `usage: ${usage}`);
    process.exit(0);
  }
  try {
    return parseFlagsOrThrow(argv, spec);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`${err.message}; usage: ${usage}`);
    process.exit(2);
  }
}
