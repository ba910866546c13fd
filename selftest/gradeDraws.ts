/**
 * Grades implementations on the hidden cases drawn for many submission names (`--variants`), in
 * this process with the suite's own pieces (gradeInProcess): what the variants self-test and
 * `npm run bench:variants` both run.
 */
import type { Submission } from '../adapters';
import type { Variants } from '../lib/model/variants';
import { GRADED_CASES } from '../tests/cases';
import { gradeInProcess } from './gradeInProcess';

export interface DrawFailure {
  implementation: string;
  /** The submission name the cases were drawn for. */
  drawnFor: string;
  test: string;
  message: string;
}

export interface DrawsGraded {
  /** Draws of the whole hidden set, each graded for every implementation. */
  draws: number;
  /** Hidden cases graded in all (draws × cases × implementations). */
  calls: number;
  failures: DrawFailure[];
}

export async function gradeDraws(
  implementations: readonly { name: string; impl: Partial<Submission> }[], variants: Variants, names: readonly string[],
): Promise<DrawsGraded> {
  const hidden = GRADED_CASES.filter((c) => c.hidden);
  const failures: DrawFailure[] = [];
  for (const drawnFor of names) {
    const drawn = variants.draw(drawnFor, hidden);
    for (const { name, impl } of implementations) {
      const results = await gradeInProcess(impl, name, hidden, (graded) => drawn.get(graded.fixture)!);
      for (const r of results.filter((x) => !x.passed)) failures.push({ implementation: name, drawnFor, test: r.graded.name, message: r.message.split('\n')[0] });
    }
  }
  return { draws: names.length, calls: names.length * hidden.length * implementations.length, failures };
}
