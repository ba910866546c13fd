/**
 * Every option of `npm run grade` that can change a grade, in one list. The command line takes its
 * flags, their help and their values from it (gradeOptionValues), and a batch records each as it
 * says (recordOptions, in every result and in batch.json), so an option cannot change a grade
 * without being recorded: a rerun with another value regrades, and a merge refuses shards graded
 * with another. Every other flag is in OTHER_FLAGS with the reason it changes no grade, and a
 * self-test (selftest/grader/gradeOptions.test.ts) fails when `--help` lists a flag in neither
 * list, when an option here is not recorded, or when a flag of OTHER_FLAGS changes a result.
 *
 * To add an option: one entry here (its flag, help, how its value is set and recorded), and the
 * field it sets in OptionValues, which GradeOptions (lib/grading/grade.ts) then carries.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FlagKind } from '../cli';
import { readExtensions, type Extensions } from '../late/extensions';
import { formatLatePolicy, LATE_POLICY_SYNTAX, parseLatePolicy, type LatePolicy } from '../late/policy';
import { RosterError } from '../late/roster';
import { secretHash } from '../model/secret';
import { visibleOf, type GradedCase } from '../assignment/cases';
import { DEFAULT_MEMORY_BYTES } from '../sandbox/outOfMemory';

/** What the grade-changing options set, as grading reads them (a subset of a batch's options). */
export interface OptionValues {
  cases: readonly GradedCase[];
  timeoutMs: number;
  budgetMs?: number;
  /** The child's memory cap; absent: DEFAULT_MEMORY_MIB. */
  memoryBytes?: number;
  carryForward?: boolean;
  latePolicy?: LatePolicy;
  /** --extensions: students' own due times under the late policy (lib/late/extensions.ts). */
  extensions?: Extensions;
  /**
   * --variants: the course's secret, from which each submission's hidden cases are drawn (the
   * command turns it into the draws, lib/model/variants.ts); recorded only as a hash.
   */
  variantsSecret?: string;
  /** The draws made from that secret, as grading gets them: what a batch records is their secret's hash. */
  variants?: { secretSha256: string };
}

export const DEFAULT_TIMEOUT_S = 10;
export const DEFAULT_BUDGET_S = 60;
export const DEFAULT_MEMORY_MIB = DEFAULT_MEMORY_BYTES / 1024 ** 2;

export interface GradeOption {
  /** The flag, without its dashes. */
  flag: string;
  kind: FlagKind;
  /** Its lines in `--help`. */
  help: string;
  /** Needs instructor files (the handout neither lists nor accepts it). */
  instructorOnly?: boolean;
  /** The values the flag sets (its value undefined: not given) for `assignment`, or one line saying why the value is wrong. */
  apply(value: string | number | boolean | undefined, assignment: { cases: readonly GradedCase[] }): Partial<OptionValues> | string;
  /** The key it is recorded under in `graded_with.options`. */
  key: string;
  /** What is recorded for these values; undefined when the option is off (so results graded before it existed still match). */
  record(values: OptionValues): unknown;
  /** A recorded value (or undefined) as the flag shows it in a message: "--hidden on". */
  show(recorded: unknown): string;
  /**
   * A value of the flag that is not its default: the self-test checks that it changes what is
   * recorded. For a flag that names a file, a function that writes one into `dir` and gives its path.
   */
  example: string | number | boolean | ((dir: string) => string);
}

const seconds = (v: unknown) => (typeof v === 'number' ? `${v / 1000} s` : String(v));

export const GRADE_OPTIONS: readonly GradeOption[] = [
  {
    flag: 'hidden', kind: 'boolean', instructorOnly: true, example: true,
    help: '  --hidden           include the instructor-only cases',
    apply: (v, { cases }) => ({ cases: v ? cases : visibleOf(cases) }),
    key: 'hidden', record: (o) => o.cases.some((c) => c.hidden),
    show: (v) => `--hidden ${v === true ? 'on' : v === false ? 'off' : String(v)}`,
  },
  {
    flag: 'variants', kind: 'string', instructorOnly: true, example: 'a course secret',
    help: `  --variants SECRET  with --hidden: each submission's hidden inputs drawn from SECRET and its name
                     (the same secret and name give the same cases; a batch records a hash of it)`,
    apply: (v) => {
      if (v === undefined) return {};
      if (v === '' || v === true) return "--variants needs a secret: the course's, the same for every run that must give the same cases";
      return { variantsSecret: String(v) };
    },
    key: 'variants',
    record: (o) => o.variants?.secretSha256 ?? (o.variantsSecret === undefined ? undefined : secretHash(o.variantsSecret)),
    show: (v) => `--variants ${typeof v === 'string' ? `with the secret of sha256 ${v.slice(0, 12)}…` : 'off'}`,
  },
  {
    flag: 'carry-forward', kind: 'boolean', instructorOnly: true, example: true,
    help: `  --carry-forward    a failed test whose code is right given the student's own other
                     functions earns its points (the assignment says which; its reason says so); off by default`,
    apply: (v) => ({ carryForward: Boolean(v) }),
    key: 'carry_forward', record: (o) => (o.carryForward ? true : undefined),
    show: (v) => `--carry-forward ${v === true ? 'on' : 'off'}`,
  },
  {
    flag: 'late-policy', kind: 'string', instructorOnly: true, example: 'due=2026-12-01T23:59Z,per=day,penalty=10%',
    help: `  --late-policy ${LATE_POLICY_SYNTAX}
                     what a late submission loses: each started hour or day after the due time (past
                     the grace period) costs the penalty, a percentage of the maximum score or points,
                     up to the cap; e.g. due=2026-12-01T23:59Z,per=day,penalty=10%,cap=50%,grace=15m.
                     A submission's time is --times FILE's, else that of the commit fetch-submissions
                     graded; grades.csv shows the points before the penalty, the penalty and the total
                     after it. On Gradescope: npm run gradescope -- --late-policy (its metadata's times)`,
    apply: (v) => {
      if (v === undefined) return {};
      // Only Gradescope gives each submission its due date (npm run gradescope -- --late-policy): here it is given.
      const policy = parseLatePolicy(String(v), true);
      return typeof policy === 'string' ? policy : { latePolicy: policy };
    },
    key: 'late_policy', record: (o) => (o.latePolicy ? formatLatePolicy(o.latePolicy) : undefined),
    show: (v) => (v === undefined ? 'no --late-policy' : `--late-policy ${String(v)}`),
  },
  {
    flag: 'extensions', kind: 'string', instructorOnly: true,
    example: (dir) => {
      fs.writeFileSync(path.join(dir, 'extensions.csv'), 'submission,extension\nalice,48h\n');
      return path.join(dir, 'extensions.csv');
    },
    help: `  --extensions FILE  with --late-policy: students' own due times, a CSV naming each student as --roster
                     does (a submission column, or Canvas's identifiers) with a due column (a time
                     with its zone) or an extension column (48h, 2d: after the policy's due time);
                     a row with neither has none. Recorded like the policy: a new file regrades`,
    apply: (v) => {
      if (v === undefined) return {};
      if (v === '' || v === true) return '--extensions needs a file: a CSV with submission (or Canvas\'s identifiers) and due or extension';
      try {
        return { extensions: readExtensions(String(v)) };
      } catch (err) {
        if (err instanceof RosterError) return `--${err.message}`;
        throw err;
      }
    },
    key: 'extensions',
    record: (o) => (o.extensions ? { students: o.extensions.entries.length, sha256: o.extensions.sha256 } : undefined),
    show: (v) => {
      const recorded = v as { students?: unknown; sha256?: unknown } | undefined;
      return recorded ? `--extensions with ${String(recorded.students)} extension(s) (sha256 ${String(recorded.sha256).slice(0, 12)}…)` : 'no --extensions';
    },
  },
  {
    flag: 'timeout', kind: 'number', example: 20,
    help: `  --timeout S        per-test time limit in seconds (default ${DEFAULT_TIMEOUT_S})`,
    apply: (v) => ({ timeoutMs: ((v as number | undefined) ?? DEFAULT_TIMEOUT_S) * 1000 }),
    key: 'timeout_ms', record: (o) => o.timeoutMs,
    show: (v) => `--timeout ${seconds(v)}`,
  },
  {
    flag: 'budget', kind: 'number', example: 90,
    help: `  --budget S         time budget of a whole submission, all its tests together (default ${DEFAULT_BUDGET_S})`,
    apply: (v) => ({ budgetMs: ((v as number | undefined) ?? DEFAULT_BUDGET_S) * 1000 }),
    key: 'budget_ms', record: (o) => o.budgetMs ?? DEFAULT_BUDGET_S * 1000,
    show: (v) => `--budget ${seconds(v)}`,
  },
  {
    flag: 'memory', kind: 'number', example: 1024,
    help: `  --memory MIB       memory cap per child process, typed arrays included (default ${DEFAULT_MEMORY_MIB})`,
    apply: (v) => ({ memoryBytes: ((v as number | undefined) ?? DEFAULT_MEMORY_MIB) * 1024 ** 2 }),
    key: 'memory_mib', record: (o) => (o.memoryBytes ?? DEFAULT_MEMORY_MIB * 1024 ** 2) / 1024 ** 2,
    show: (v) => `--memory ${typeof v === 'number' ? `${v} MiB` : String(v)}`,
  },
];

/**
 * The other flags of `npm run grade`, each with why it is not recorded: none changes a point.
 * (`--times` changes a penalty through each submission's time, which each result records itself.)
 */
export const OTHER_FLAGS: Readonly<Record<string, { kind: FlagKind; why: string }>> = {
  submission: { kind: 'string', why: 'names what is graded, not how' },
  reference: { kind: 'boolean', why: 'names what is graded, not how' },
  submissions: { kind: 'string', why: 'names what is graded, not how' },
  out: { kind: 'string', why: 'where the results go' },
  jobs: { kind: 'number', why: 'how many submissions are graded at once; each in children of its own' },
  force: { kind: 'boolean', why: 'regrades what would be kept, with the same options' },
  shard: { kind: 'string', why: 'which submissions this machine grades; recorded in batch.json for the merge' },
  similarity: { kind: 'boolean', why: 'writes a comparison of the code beside the grades' },
  roster: { kind: 'string', why: 'writes canvas.csv from the grades' },
  assignment: { kind: 'string', why: "names canvas.csv's column" },
  times: { kind: 'string', why: "each submission's time, recorded in its own result (graded_with.submitted_at)" },
  json: { kind: 'string', why: 'also writes the result as Gradescope results.json' },
  html: { kind: 'optional', why: 'also writes the result as a page' },
  'instructor-view': { kind: 'boolean', why: "pages show hidden tests' expected values; no verdict changes" },
  verbose: { kind: 'boolean', why: 'prints more of the result' },
  help: { kind: 'boolean', why: 'prints the usage' },
};

/** Every flag of `npm run grade` and its kind, for parseFlags. */
export function gradeFlagKinds(): Record<string, FlagKind> {
  return {
    ...Object.fromEntries(Object.entries(OTHER_FLAGS).map(([flag, { kind }]) => [flag, kind])),
    ...Object.fromEntries(GRADE_OPTIONS.map((o) => [o.flag, o.kind])),
  };
}

/** The values the command line's grade-changing flags set, or one line saying which value is wrong. */
export function gradeOptionValues(flags: Readonly<Record<string, unknown>>, assignment: { cases: readonly GradedCase[] }): OptionValues | string {
  const values: Partial<OptionValues> = {};
  for (const option of GRADE_OPTIONS) {
    const applied = option.apply(flags[option.flag] as string | number | boolean | undefined, assignment);
    if (typeof applied === 'string') return applied;
    Object.assign(values, applied);
  }
  return values as OptionValues;
}

/** What a batch records of its options: every option's value, those that are off left out. */
export function recordOptions(values: OptionValues): Record<string, unknown> {
  const recorded: Record<string, unknown> = {};
  for (const option of GRADE_OPTIONS) {
    const value = option.record(values);
    if (value !== undefined) recorded[option.key] = value;
  }
  return recorded;
}

/**
 * The options two records differ in, as "<a's> instead of <b's>" ("--hidden on instead of off"),
 * or undefined when they agree. A key no option of this grader knows differs too: a record from
 * a grader with another option is never taken for this one's.
 */
export function optionsDifference(a: Readonly<Record<string, unknown>> = {}, b: Readonly<Record<string, unknown>> = {}): string | undefined {
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  const parts = GRADE_OPTIONS.filter((o) => !same(a[o.key], b[o.key]))
    .map((o) => `${o.show(a[o.key])} instead of ${o.show(b[o.key]).replace(/^(--\S+|no --\S+) ?/, '') || 'none'}`);
  const known = new Set(GRADE_OPTIONS.map((o) => o.key));
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!known.has(key) && !same(a[key], b[key])) parts.push(`option ${key} ${JSON.stringify(a[key]) ?? 'unset'} instead of ${JSON.stringify(b[key]) ?? 'unset'}`);
  }
  return parts.length ? parts.join(', ') : undefined;
}

