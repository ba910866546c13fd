/**
 * A late policy (`--late-policy due=2026-12-01T23:59Z,per=day,penalty=10%,cap=50%,grace=15m`): what
 * a submission loses for coming after the due time. Lateness counts from the due time; within the
 * grace period it costs nothing; past it, every started hour or day (per) costs `penalty`, up to
 * `cap`. A percentage is of the assignment's maximum score (Canvas's and Gradescope's convention),
 * a bare number is points; the final score never goes below 0. On Gradescope, `due` may be left
 * out: each submission's own due date then comes from its metadata, extensions included.
 */

export type PerUnit = 'hour' | 'day';

/** An amount of points: a share of the maximum score, or points. */
export interface Amount {
  value: number;
  percent: boolean;
}

export interface LatePolicy {
  /** The due time (ms since the epoch); undefined: each submission's own, from Gradescope's metadata. */
  dueMs?: number;
  per: PerUnit;
  penalty: Amount;
  /** Most a submission can lose; undefined: no cap but its whole score. */
  cap?: Amount;
  graceMs: number;
}

const UNIT_MS: Record<PerUnit, number> = { hour: 3_600_000, day: 86_400_000 };
const DURATION_MS: Record<string, number> = { s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 };

export const LATE_POLICY_SYNTAX = 'due=TIME,per=hour|day,penalty=P%|POINTS[,cap=C%|POINTS][,grace=DURATION]';

/**
 * An ISO 8601 time with its zone (`2026-12-01T23:59Z`, `2026-12-01T23:59:00-05:00`), as ms since
 * the epoch; undefined for anything else. A time without a zone is refused: whose midnight it is
 * would be a guess.
 */
export function parseTime(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/i.exec(text.trim());
  if (!match) return undefined;
  const ms = Date.parse(text.trim().replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(ms) ? ms : undefined;
}

function parseAmount(key: string, text: string): Amount | string {
  const match = /^(\d+(?:\.\d+)?)(%?)$/.exec(text);
  if (!match) return `${key}=${text}: give a percentage of the maximum score (10%) or points (1.5)`;
  const amount = { value: Number(match[1]), percent: match[2] === '%' };
  if (amount.percent && amount.value > 100) return `${key}=${text}: a percentage of at most 100%`;
  return amount;
}

/** A duration (`15m`, `2h`, `1.5d`, `90s`) in ms; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(s|min|m|h|d)$/.exec(text);
  return match ? Number(match[1]) * DURATION_MS[match[2]] : undefined;
}

/**
 * `--late-policy`'s text as a policy, or one line saying what is wrong with it. `dueRequired`: a
 * batch has no Gradescope metadata, so it needs `due`.
 */
export function parseLatePolicy(text: string, dueRequired: boolean): LatePolicy | string {
  const fields = new Map<string, string>();
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const at = part.indexOf('=');
    const key = at > 0 ? part.slice(0, at).trim() : part;
    if (at <= 0) return `--late-policy: "${part}" is not key=value; write ${LATE_POLICY_SYNTAX}`;
    if (!['due', 'per', 'penalty', 'cap', 'grace'].includes(key)) return `--late-policy: unknown key "${key}"; write ${LATE_POLICY_SYNTAX}`;
    if (fields.has(key)) return `--late-policy: ${key} is given twice`;
    fields.set(key, part.slice(at + 1).trim());
  }
  const due = fields.get('due');
  let dueMs: number | undefined;
  if (due !== undefined) {
    dueMs = parseTime(due);
    if (dueMs === undefined) return `--late-policy: due=${due} is not a time with its zone: write e.g. due=2026-12-01T23:59Z or due=2026-12-01T23:59-05:00`;
  } else if (dueRequired) {
    return `--late-policy needs due=TIME (e.g. due=2026-12-01T23:59Z): only Gradescope gives each submission its due date`;
  }
  const per = fields.get('per');
  if (per !== 'hour' && per !== 'day') return `--late-policy: per=${per ?? ''} must be per=hour or per=day (what one step of penalty is for)`;
  if (!fields.has('penalty')) return `--late-policy needs penalty=P% or penalty=POINTS (what each ${per} late costs)`;
  const penalty = parseAmount('penalty', fields.get('penalty')!);
  if (typeof penalty === 'string') return `--late-policy: ${penalty}`;
  let cap: Amount | undefined;
  if (fields.has('cap')) {
    const parsed = parseAmount('cap', fields.get('cap')!);
    if (typeof parsed === 'string') return `--late-policy: ${parsed}`;
    cap = parsed;
  }
  let graceMs = 0;
  if (fields.has('grace')) {
    const parsed = parseDuration(fields.get('grace')!);
    if (parsed === undefined) return `--late-policy: grace=${fields.get('grace')} must be a duration such as 15m, 2h or 1d`;
    graceMs = parsed;
  }
  return { dueMs, per, penalty, cap, graceMs };
}

const amountText = (a: Amount) => `${a.value}${a.percent ? '%' : ''}`;

function durationText(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000]] as const) if (ms % size === 0 && ms >= size) return `${ms / size}${unit}`;
  return `${ms / 1000}s`;
}

/** The policy in one canonical form: what a batch records, so that the same policy written two ways is one. */
export function formatLatePolicy(policy: LatePolicy): string {
  return [
    ...(policy.dueMs !== undefined ? [`due=${new Date(policy.dueMs).toISOString()}`] : []),
    `per=${policy.per}`,
    `penalty=${amountText(policy.penalty)}`,
    ...(policy.cap ? [`cap=${amountText(policy.cap)}`] : []),
    ...(policy.graceMs ? [`grace=${durationText(policy.graceMs)}`] : []),
  ].join(',');
}

/** What the policy did to one submission: stored in its result (extra_data.late) and shown in grades.csv. */
export interface LateOutcome {
  /** When it was submitted (ISO 8601), or null when no time was known. */
  submitted_at: string | null;
  /** Where that time came from: Gradescope's metadata, the fetched commit, the --times file. */
  source: 'gradescope' | 'commit' | 'times' | null;
  /** Its due time (ISO 8601), or null when none was known. */
  due: string | null;
  /** The due time is the student's own, from --extensions, not the policy's. */
  extended?: true;
  /** How late, in ms (0 when on time). */
  late_ms: number;
  /** Points before the penalty, the penalty, and what is left. */
  before: number;
  penalty: number;
  /** One line for the student and the gradebook. */
  note: string;
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
const points = (a: Amount, max: number) => (a.percent ? (a.value / 100) * max : a.value);

/** "1 day 2 h 5 min", "40 min", "25 s". */
export function lateText(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes === 0) return `${Math.ceil(ms / 1000)} s`;
  const [d, h, m] = [Math.floor(minutes / 1440), Math.floor((minutes % 1440) / 60), minutes % 60];
  return [d ? `${d} day${d > 1 ? 's' : ''}` : '', h ? `${h} h` : '', m ? `${m} min` : ''].filter(Boolean).join(' ');
}

/**
 * When a submission was handed in (`submittedMs`, undefined: unknown) and its own due times: one
 * from Gradescope's metadata (`dueMs`, used when the policy has none) and an extension
 * (`extendedMs`, --extensions, which overrides the policy's).
 */
export interface LateTime {
  submittedMs?: number;
  dueMs?: number;
  extendedMs?: number;
  source: LateOutcome['source'];
}

/** What `policy` takes from a submission that earned `before` of `max` points, handed in at `time`. */
export function applyLatePolicy(policy: LatePolicy, time: LateTime, before: number, max: number): LateOutcome {
  const dueMs = time.extendedMs ?? policy.dueMs ?? time.dueMs;
  const base = {
    submitted_at: time.submittedMs === undefined ? null : new Date(time.submittedMs).toISOString(), source: time.submittedMs === undefined ? null : time.source,
    due: dueMs === undefined ? null : new Date(dueMs).toISOString(), ...(time.extendedMs !== undefined ? { extended: true as const } : {}), before,
  };
  // The note says when the due time is the student's own: the row must show why it differs.
  const own = time.extendedMs !== undefined ? ` (extended due time ${base.due})` : '';
  if (time.submittedMs === undefined) return { ...base, late_ms: 0, penalty: 0, note: `no submission time known: no late penalty applied${own}` };
  if (dueMs === undefined) return { ...base, late_ms: 0, penalty: 0, note: 'no due time known: no late penalty applied' };
  const lateMs = Math.max(0, time.submittedMs - dueMs);
  if (lateMs === 0) return { ...base, late_ms: 0, penalty: 0, note: `on time${own}` };
  if (lateMs <= policy.graceMs) return { ...base, late_ms: lateMs, penalty: 0, note: `${lateText(lateMs)} late, within the ${lateText(policy.graceMs)} grace period: no penalty${own}` };
  const steps = Math.ceil(lateMs / UNIT_MS[policy.per]);
  const uncapped = steps * points(policy.penalty, max);
  const capped = policy.cap ? Math.min(uncapped, points(policy.cap, max)) : uncapped;
  const penalty = round(Math.min(before, capped));
  const rule = `${amountText(policy.penalty)} a ${policy.per}${policy.cap && capped < uncapped ? `, capped at ${amountText(policy.cap)}` : ''}`;
  return { ...base, late_ms: lateMs, penalty, note: `${lateText(lateMs)} late (${steps} ${policy.per}${steps > 1 ? 's' : ''} at ${rule}): −${round(penalty)} point${penalty === 1 ? '' : 's'}${own}` };
}

/** The result with the policy applied: its score is what is left after the penalty, and `late` says why. */
export function withLatePenalty<R extends { score: number; maxScore: number; late?: LateOutcome }>(result: R, policy: LatePolicy, time: LateTime): R {
  const late = applyLatePolicy(policy, time, result.score, result.maxScore);
  return { ...result, late, score: round(late.before - late.penalty) };
}
