/** The audit's figures as docs/benchmarks.md's section, and the misfits as a list to read. */
import { describeMachine, type Machine } from '../../lib/bench/measure';
import type { AuditFigures, Misfit } from './audit';
import { CORRECT_OPERATORS } from './fits';

export const SECTION = '## The diagnosis on generated mistakes';

const pct = (n: number, of: number) => (of === 0 ? '–' : `${((100 * n) / of).toFixed(2)} %`);

export function misfitLine({ mutant, test, mistake }: Misfit): string {
  return `${mutant.solution}/${mutant.file}:${mutant.line} ${mutant.operator} [${mutant.parts.join(', ')}] \`${mutant.code.slice(0, 100)}\` → ${test}: ${mistake}`;
}

export function auditMarkdown(
  f: AuditFigures, context: { machine: Machine; date: string; command: string; workers: number; limitMs: number; load: { start: number; end: number } },
): string {
  const claims = Object.entries(f.byClaim).sort((a, b) => b[1].said - a[1].said);
  return [
    SECTION,
    '',
    `\`${context.command}\`, ${context.date}, ${describeMachine(context.machine)}; ${context.workers} worker threads, ${context.limitMs / 1000} s per call.`,
    `${(f.seconds / 60).toFixed(1)} min in all, ${(f.cpuSeconds / 60).toFixed(1)} min of the workers' CPU time (${(f.cpuSeconds / Math.max(1, f.mutants)).toFixed(2)} s per mutant); load average (1 min) ${context.load.start.toFixed(2)} when it started and ${context.load.end.toFixed(2)} when it ended: the wall time grows with what else runs, the CPU time does not.`,
    '',
    `Mutants of ${f.solutions.length} correct solutions (selftest/catalogue/correct/, the ones with \`// audit:\` lines), from Stryker's mutators and the audit's own (selftest/audit/operators/), each graded and diagnosed in process by the grader's own code (selftest/audit/run.ts).`,
    '',
    '| | count |',
    '| --- | ---: |',
    `| mutants | ${f.mutants} |`,
    `| kept: fail at least one test | ${f.killed} |`,
    `| fail no test (dropped) | ${f.survived} |`,
    `| do not load (dropped) | ${f.loadErrors} |`,
    `| given up (a worker held past the watchdog) | ${f.gaveUp} |`,
    `| kept, every failed test a time limit | ${f.onlyTimedOut} |`,
    `| failed tests of kept mutants | ${f.failedTests} |`,
    `| … whose failure's own words do not say what is wrong | ${f.open} |`,
    `| claims said (diagnoses, observations included) | ${f.claims} |`,
    `| **claims that do not fit their mutant** | **${f.misfits.length} (${pct(f.misfits.length, f.claims)})** (goal under 1 %) |`,
    `| **"No known cause" or nothing, of the open failed tests** | **${f.silent} (${pct(f.silent, f.open)})** (goal at most 25 %) |`,
    '',
    '| solution | mutants | kept |',
    '| --- | ---: | ---: |',
    ...f.solutions.map((s) => `| ${s.name} | ${s.mutants} | ${s.killed} |`),
    '',
    `Per operator: the claims said of its kept mutants and those that do not fit (goal under 1 % on each). ${CORRECT_OPERATORS.join(', ')} computes the same in another order: its mutants must fail no test ("kept" counts those that do) and have nothing said of them.`,
    '',
    '| operator | mutants | kept | claims | do not fit |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...f.operators.map((o) => `| ${o.name} | ${o.mutants} | ${o.killed} | ${o.claims} | ${o.misfit} (${pct(o.misfit, o.claims)}) |`),
    '',
    '| claim | said | does not fit |',
    '| --- | ---: | ---: |',
    ...claims.map(([id, row]) => `| ${id} | ${row.said} | ${row.misfit} |`),
    '',
  ].join('\n');
}
