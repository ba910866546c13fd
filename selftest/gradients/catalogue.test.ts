/**
 * The gradients part held to its catalogue (selftest/catalogue/gradients.ts), graded in process as
 * npm test grades it (kit.ts): correct backward passes written other ways get full marks and match
 * no mistake; each mistake loses points on its own function's visible tests and no other's, is
 * named as itself on at least one of them, and is never said to be anything but itself or an
 * observation listed as true of it. grader.test.ts holds the grader's path to the same words.
 */
import { describe, expect, it } from 'vitest';
import { inProcessContext, InProcessSession } from '../../lib/grading/inProcess';
import { probeOf } from '../../lib/suite/submission';
import { diagnose } from '../../tests/diagnosis/diagnose';
import { BACKWARD_MISTAKES } from '../../tests/diagnosis/backwardMistakes';
import { GRADIENT_BUGS, GRADIENT_CORRECT, type GradientEntry } from '../catalogue/gradients';
import { gradeGradients, WITH_GRADIENTS, type GradedResult } from './kit';

const load = async (file: string) => (await import(file)) as object;

/** Each entry graded once (a module that keeps state would not answer a second grading as the first); its probes get an instance of their own. */
const graded = new Map<string, Promise<GradedResult[]>>();
const gradedOnce = (entry: GradientEntry) => {
  if (!graded.has(entry.name)) graded.set(entry.name, Promise.all([load(entry.file), load(`${entry.file}?probe`)]).then(([impl, probed]) => gradeGradients(impl, entry.name, undefined, undefined, probed)));
  return graded.get(entry.name)!;
};

const ids = (mistake: string) => mistake.split(/[|+]/);

describe('correct backward passes written other ways', () => {
  it.each(GRADIENT_CORRECT.map((e) => [e.name, e] as const))('%s: full marks, visible and hidden', async (_, entry) => {
    expect((await gradedOnce(entry)).filter((r) => !r.passed).map((r) => `${r.graded.name}: ${r.message}`)).toEqual([]);
  });

  it.each(GRADIENT_CORRECT.map((e) => [e.name, e] as const))('%s: asked anyway, the diagnosis names nothing on its outputs', async (_, entry) => {
    const impl = await load(entry.file);
    const context = inProcessContext(probeOf(WITH_GRADIENTS, impl, entry.name), new InProcessSession(impl, WITH_GRADIENTS.functions, entry.name), WITH_GRADIENTS);
    const said: string[] = [];
    for (const r of await gradedOnce(entry)) {
      const session = new InProcessSession(impl, WITH_GRADIENTS.functions, entry.name);
      const outcome = session.call(r.graded.fn, r.fixture);
      if (outcome.kind !== 'value') continue;
      for (const { name, value } of outcome.value) {
        if (!('data' in value)) continue;
        const diagnosis = await diagnose(r.graded, r.fixture, { kind: 'output', output: value, ...(outcome.value.length > 1 && { part: name }) }, context);
        if (diagnosis) said.push(`${r.graded.name} (${name}): ${diagnosis.mistake}`);
      }
    }
    expect(said).toEqual([]);
  });
});

describe('each backward mistake', () => {
  it.each(GRADIENT_BUGS.map((e) => [e.name, e] as const))('%s: fails a visible test of its own function, and no test of another', async (_, entry) => {
    const results = await gradedOnce(entry);
    expect(results.filter((r) => !r.passed && !r.graded.hidden && r.graded.fn === entry.breaks).length).toBeGreaterThan(0);
    expect(results.filter((r) => !r.passed && r.graded.fn !== entry.breaks).map((r) => r.graded.name)).toEqual([]);
  });

  it.each(GRADIENT_BUGS.map((e) => [e.name, e] as const))('%s: is named as itself, on a visible test, and as nothing else', async (_, entry) => {
    const failed = (await gradedOnce(entry)).filter((r) => !r.passed);
    expect(failed.filter((r) => !r.graded.hidden && r.diagnosis?.mistake === entry.mistake).length, `never named ${entry.mistake}`).toBeGreaterThan(0);
    const other = failed.filter((r) => r.diagnosis && !ids(r.diagnosis.mistake).every((id) => id === entry.mistake || entry.mayAlsoSay?.includes(id)));
    expect(other.map((r) => `${r.graded.name}: ${r.diagnosis!.mistake}`)).toEqual([]);
    // What a named mistake says is in the note a student reads, measured evidence and all.
    for (const r of failed.filter((x) => x.diagnosis)) expect(r.note).toBe(`Diagnosis: ${r.diagnosis!.message}`);
  });

  it('every mistake a backward diagnosis may name as a cause has a bug that shows it, and each bug names a mistake of its own function', () => {
    const causes = BACKWARD_MISTAKES.filter((m) => !m.observation).map((m) => m.id);
    expect(causes.filter((id) => !GRADIENT_BUGS.some((b) => b.mistake === id))).toEqual([]);
    expect(GRADIENT_BUGS.filter((b) => BACKWARD_MISTAKES.find((m) => m.id === b.mistake)?.fn !== b.breaks).map((b) => b.name)).toEqual([]);
    const observations = BACKWARD_MISTAKES.filter((m) => m.observation).map((m) => m.id);
    expect(GRADIENT_BUGS.flatMap((b) => b.mayAlsoSay ?? []).filter((id) => !observations.includes(id))).toEqual([]);
  });
});
