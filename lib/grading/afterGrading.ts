/**
 * What the grader asks a submission after every verdict is in, through the assignment's plug-ins
 * (assignment.ts), in fresh contained children: so nothing asked here reaches a graded call, and a
 * probe that hangs or kills its child changes no verdict. The carry-forward of points an
 * instructor chose (--carry-forward), and the pictures a submission's page draws (--html).
 */
import type { GradedCase } from '../assignment/cases';
import type { LoadedFixture } from '../model/fixtures';
import type { AttentionHeatmap, CaseResult, CaseStatus } from '../model/result';
import type { ChildSession } from '../sandbox/session';
import type { Assignment, FreshCalls } from './assignment';
import { childProbe } from './diagnoseInChild';
import type { CaseVerdict } from './verdict';

/**
 * Each failed case whose output the assignment finds right given the student's own other
 * functions passes, with the plug-in's reason; the details keep what it failed with.
 */
export async function carryForward(
  assignment: Pick<Assignment, 'carryForward'>, session: FreshCalls, cases: readonly GradedCase[], fixtures: ReadonlyMap<string, LoadedFixture>, verdicts: Map<string, CaseVerdict>,
): Promise<void> {
  if (!assignment.carryForward) return;
  for (const graded of cases) {
    const verdict = verdicts.get(graded.name);
    if (verdict?.status !== 'failed' || verdict.evidence?.kind !== 'output') continue;
    const reason = await assignment.carryForward(session, graded, fixtures.get(graded.fixture)!, verdict.evidence.output);
    if (reason) verdicts.set(graded.name, { status: 'passed', reason, details: `Without carrying forward: ${verdict.reason}`, carried: true });
  }
}

/** The statuses where the function ran and answered wrongly: a probe can show how. */
const PICTURED: readonly CaseStatus[] = ['failed', 'error'];

/** Each failed case's picture, by case name, where the assignment draws one. `instructorView`: hidden cases show their expected values too. */
export async function heatmaps(
  assignment: Pick<Assignment, 'heatmap'>, session: ChildSession, cases: readonly GradedCase[], fixtures: ReadonlyMap<string, LoadedFixture>,
  results: readonly CaseResult[], instructorView = false,
): Promise<Map<string, AttentionHeatmap>> {
  const drawn = new Map<string, AttentionHeatmap>();
  if (!assignment.heatmap) return drawn;
  const probe = childProbe(session);
  for (const graded of cases) {
    const result = results.find((r) => r.name === graded.name);
    if (!result || !PICTURED.includes(result.status)) continue;
    const heatmap = await assignment.heatmap(probe, graded, fixtures.get(graded.fixture)!, instructorView);
    if (heatmap) drawn.set(graded.name, heatmap);
  }
  return drawn;
}
