import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { applyLatePolicy, formatLatePolicy, parseLatePolicy, parseTime, withLatePenalty, type LateOutcome, type LatePolicy } from './policy';

const DUE = '2026-12-01T23:59:00.000Z';
const due = Date.parse(DUE);
const H = 3_600_000;
const policy = (text: string) => {
  const parsed = parseLatePolicy(text, true);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
};
const at = (ms: number) => ({ submittedMs: ms, source: 'times' as const });

describe('--late-policy', () => {
  it('reads due, per, penalty, cap and grace, and writes them back in one canonical form', () => {
    const p = policy(`due=2026-12-01T18:59-05:00, per=day ,penalty=10%,cap=50%,grace=15m`);
    expect(p).toEqual({ dueMs: due, per: 'day', penalty: { value: 10, percent: true }, cap: { value: 50, percent: true }, graceMs: 15 * 60_000 });
    expect(formatLatePolicy(p)).toBe(`due=${DUE},per=day,penalty=10%,cap=50%,grace=15m`);
    expect(policy(formatLatePolicy(p))).toEqual(p);
    expect(policy(`due=${DUE},per=hour,penalty=0.5`)).toEqual({ dueMs: due, per: 'hour', penalty: { value: 0.5, percent: false }, graceMs: 0 });
  });

  it('refuses what it cannot read in one line naming the key and the fix', () => {
    const refusals: [string, RegExp][] = [
      ['per=day,penalty=10%', /needs due=TIME/],
      ['due=2026-12-01T23:59,per=day,penalty=10%', /not a time with its zone/],
      [`due=${DUE},per=week,penalty=10%`, /per=week must be per=hour or per=day/],
      [`due=${DUE},per=day`, /needs penalty=/],
      [`due=${DUE},per=day,penalty=ten`, /penalty=ten: give a percentage/],
      [`due=${DUE},per=day,penalty=10%,cap=150%`, /cap=150%: a percentage of at most 100%/],
      [`due=${DUE},per=day,penalty=10%,grace=15x`, /grace=15x must be a duration/],
      [`due=${DUE},per=day,penalty=10%,late=1`, /unknown key "late"/],
      [`due=${DUE},due=${DUE},per=day,penalty=10%`, /due is given twice/],
      [`due=${DUE},per=day,10%`, /"10%" is not key=value/],
    ];
    for (const [text, why] of refusals) expect(parseLatePolicy(text, true), text).toMatch(why);
    // On Gradescope each submission's metadata gives its due date: due may be left out.
    expect(parseLatePolicy('per=day,penalty=10%', false)).toMatchObject({ dueMs: undefined });
  });

  it('times need their zone; Gradescope\'s microseconds and offsets are read', () => {
    expect(parseTime('2018-07-01T14:22:32.365935-07:00')).toBe(Date.parse('2018-07-01T21:22:32.365Z'));
    expect(parseTime('2026-12-01 23:59Z')).toBe(due);
    expect(parseTime('2026-12-01T23:59:00')).toBeUndefined();
    expect(parseTime('tomorrow')).toBeUndefined();
  });
});

describe('what a late submission loses', () => {
  const p = policy(`due=${DUE},per=day,penalty=10%,cap=30%,grace=15m`);
  const lost = (ms: number) => applyLatePolicy(p, at(ms), 12, 12).penalty;

  it('nothing on time or within the grace period; every started day after it, up to the cap', () => {
    expect(lost(due - H)).toBe(0);
    expect(lost(due)).toBe(0);
    expect(lost(due + 15 * 60_000)).toBe(0);
    expect(lost(due + 15 * 60_000 + 1)).toBe(1.2);
    expect(lost(due + 24 * H)).toBe(1.2);
    expect(lost(due + 24 * H + 1)).toBe(2.4);
    expect(lost(due + 30 * 24 * H)).toBe(3.6);
    expect(applyLatePolicy(p, at(due + 25 * H), 12, 12).note).toBe('1 day 1 h late (2 days at 10% a day): −2.4 points');
    expect(applyLatePolicy(p, at(due + 5 * 24 * H), 12, 12).note).toMatch(/\(5 days at 10% a day, capped at 30%\): −3\.6 points$/);
  });

  it('an extension moves the due time, whatever the policy says, and the note names it', () => {
    const extendedMs = due + 48 * H;
    const outcome = applyLatePolicy(p, { ...at(due + 50 * H), extendedMs }, 12, 12);
    expect(outcome).toMatchObject({ due: new Date(extendedMs).toISOString(), extended: true, late_ms: 2 * H, penalty: 1.2 });
    expect(outcome.note).toBe(`2 h late (1 day at 10% a day): −1.2 points (extended due time ${new Date(extendedMs).toISOString()})`);
    expect(applyLatePolicy(p, { ...at(due + 47 * H), extendedMs }, 12, 12)).toMatchObject({ penalty: 0, note: `on time (extended due time ${new Date(extendedMs).toISOString()})` });
    // Without one, the policy's due time holds, and no field says otherwise.
    expect(applyLatePolicy(p, at(due + 47 * H), 12, 12)).not.toHaveProperty('extended');
  });

  it('no time known: no penalty, and it says so', () => {
    const outcome = applyLatePolicy(p, { source: null }, 12, 12);
    expect(outcome).toMatchObject({ submitted_at: null, penalty: 0, note: 'no submission time known: no late penalty applied' });
  });

  it('the score is what is left, never below 0; the points before it are kept', () => {
    const points = policy(`due=${DUE},per=hour,penalty=5`);
    const result = withLatePenalty<{ score: number; maxScore: number; late?: LateOutcome }>({ score: 3, maxScore: 12 }, points, at(due + 2 * H));
    expect(result.score).toBe(0);
    expect(result.late).toMatchObject({ before: 3, penalty: 3 });
  });

  it('over drawn policies and times: a penalty is never negative, never more than the points or the cap, and never falls as lateness grows', () => {
    const next = seedrandom('late');
    const wrong: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const drawn: LatePolicy = {
        dueMs: due, per: next() < 0.5 ? 'hour' : 'day', graceMs: Math.floor(next() * 3) * 15 * 60_000,
        penalty: { value: Math.round(next() * 40) / 2, percent: next() < 0.5 },
        cap: next() < 0.5 ? undefined : { value: Math.round(next() * 100), percent: true },
      };
      const before = Math.round(next() * 48) / 4;
      const [a, b] = [next(), next()].map((x) => due + (x - 0.2) * 20 * 24 * H).sort((x, y) => x - y);
      const [pa, pb] = [a, b].map((ms) => applyLatePolicy(drawn, at(ms), before, 12).penalty);
      const cap = drawn.cap ? (drawn.cap.value / 100) * 12 : Infinity;
      if (pa < 0 || pa > before + 1e-9 || pa > cap + 1e-9 || pb < pa - 1e-9) wrong.push(`${formatLatePolicy(drawn)} before ${before}: ${pa} at ${a}, ${pb} at ${b}`);
    }
    expect(wrong).toEqual([]);
  });
});
