/**
 * The diagnosis audit (npm run audit:diagnosis): every mutant of the audited correct solutions is
 * graded and diagnosed as the grader would (run.ts, in worker threads); the mutants that fail a
 * test are kept, and each diagnosis said of one is held against its truth (fits.ts). The figures:
 * how many claims do not fit their mutant, and on how many failed tests nothing is said where the
 * failure's own words do not say what is wrong.
 */
import { fits, type Truth } from './fits';
import { mutantsOf, type Mutant, type Solution } from './mutants';
import { runPool, type JobResult } from './pool';
import type { CaseOutcome } from './run';

export interface MutantRecord {
  id: string;
  solution: string;
  file: string;
  operator: string;
  line: number;
  parts: string[];
  code: string;
  status: 'killed' | 'survived' | 'load_error' | 'gave_up';
  /** Its failed tests (killed mutants). */
  failed?: CaseOutcome[];
  detail?: string;
}

export interface Misfit {
  mutant: MutantRecord;
  test: string;
  mistake: string;
}

export interface AuditFigures {
  solutions: { name: string; mutants: number; killed: number }[];
  /** Per operator, also the claims said of its kept mutants and how many of them do not fit. */
  operators: { name: string; mutants: number; killed: number; claims: number; misfit: number }[];
  mutants: number;
  killed: number;
  survived: number;
  loadErrors: number;
  gaveUp: number;
  /** Failed tests of killed mutants, and those with a diagnosis that could say something (not a hang, not a refusal that says it all). */
  failedTests: number;
  open: number;
  claims: number;
  misfits: Misfit[];
  /** Failed tests where only "No known cause" (or nothing) is said though the failure's words do not say what is wrong. */
  silent: number;
  /** Claims by id: how often said, and how often of a mutant they do not fit. */
  byClaim: Record<string, { said: number; misfit: number }>;
  /** Kept mutants whose every failed test is a time limit (an endless loop, or a machine too busy for 1.5 s). */
  onlyTimedOut: number;
  seconds: number;
  /** CPU time of the workers, all mutants together. */
  cpuSeconds: number;
}

const truthOf = (r: MutantRecord): Truth => ({
  operator: r.operator, parts: r.parts as Truth['parts'], attentionFails: (r.failed ?? []).some((c) => c.fn === 'scaled_dot_product_attention'),
});

export function recordOf(m: Mutant, result: JobResult | undefined): MutantRecord {
  const base = { id: m.id, solution: m.solution, file: m.file, operator: m.operator, line: m.line, parts: m.parts, code: m.code };
  if (result === undefined || typeof result === 'string') {
    const gaveUp = result === undefined || /^(gave up|the worker died|the audit failed)/.test(result);
    return { ...base, status: gaveUp ? 'gave_up' : 'load_error', detail: result ?? 'no result' };
  }
  const failed = result.filter((c) => c.status !== 'passed');
  return failed.length ? { ...base, status: 'killed', failed } : { ...base, status: 'survived' };
}

export function figures(records: readonly MutantRecord[], seconds: number, cpuSeconds: number): AuditFigures {
  const count = <K extends string>(key: (r: MutantRecord) => K) => {
    const table = new Map<K, { name: K; mutants: number; killed: number }>();
    for (const r of records) {
      const row = table.get(key(r)) ?? { name: key(r), mutants: 0, killed: 0 };
      row.mutants++;
      if (r.status === 'killed') row.killed++;
      table.set(key(r), row);
    }
    return [...table.values()];
  };
  const operators = count((r) => r.operator).sort((a, b) => b.mutants - a.mutants).map((row) => ({ ...row, claims: 0, misfit: 0 }));
  const operatorRow = new Map(operators.map((row) => [row.name, row]));
  const out: AuditFigures = {
    solutions: count((r) => r.solution), operators,
    mutants: records.length, killed: 0, survived: 0, loadErrors: 0, gaveUp: 0,
    failedTests: 0, open: 0, claims: 0, misfits: [], silent: 0, byClaim: {}, onlyTimedOut: 0, seconds, cpuSeconds,
  };
  for (const r of records) {
    if (r.status === 'survived') out.survived++;
    if (r.status === 'load_error') out.loadErrors++;
    if (r.status === 'gave_up') out.gaveUp++;
    if (r.status !== 'killed') continue;
    out.killed++;
    if (r.failed!.every((c) => c.status === 'timeout')) out.onlyTimedOut++;
    for (const c of r.failed!) {
      out.failedTests++;
      if (c.mistake === undefined && !c.note) continue;
      out.open++;
      if (c.mistake === undefined) {
        out.silent++;
        continue;
      }
      out.claims++;
      const row = (out.byClaim[c.mistake] ??= { said: 0, misfit: 0 });
      const byOperator = operatorRow.get(r.operator)!;
      row.said++;
      byOperator.claims++;
      if (!fits(c.mistake, truthOf(r))) {
        row.misfit++;
        byOperator.misfit++;
        out.misfits.push({ mutant: r, test: c.name, mistake: c.mistake });
      }
    }
  }
  return out;
}

/** Every mutant of every solution, graded: the records, in the solutions' order. */
export async function audit(
  solutions: readonly Solution[], options: { workers: number; limitMs: number; watchdogMs: number; pick?: (m: Mutant[]) => Mutant[]; progress?: (done: number, all: number) => void },
): Promise<{ records: MutantRecord[]; cpuMs: number }> {
  const all: Mutant[] = [];
  for (const s of solutions) all.push(...(await mutantsOf(s)));
  const chosen = options.pick ? options.pick(all) : all;
  const entryOf = new Map(solutions.map((s) => [s.name, s.entry.endsWith('index.ts') ? 'index.ts' : s.entry.split('/').pop()!]));
  const jobs = chosen.map((m) => ({ id: m.id, files: m.files, entry: entryOf.get(m.solution)!, label: m.solution }));
  const { results, cpuMs } = await runPool(jobs, { ...options, progress: (done) => options.progress?.(done, jobs.length) });
  return { records: chosen.map((m) => recordOf(m, results.get(m.id))), cpuMs };
}
