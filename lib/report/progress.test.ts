import { describe, expect, it } from 'vitest';
import { BatchProgress, duration, progressFrame, progressMode, progressWords, rateWords, type Ticking } from './progress';
import { caseResult, submission } from './sampleResults';

describe('progressWords: counts and times given, no clock', () => {
  it.each([
    [{ done: 0, total: 300, elapsedMs: 0 }, '0/300, 0 s in'],
    [{ done: 0, total: 300, elapsedMs: 5_400 }, '0/300, 5 s in'],
    [{ done: 12, total: 300, elapsedMs: 4_000 }, '12/300, 3.0 a second, about 1 min 36 s left'],
    [{ done: 150, total: 300, elapsedMs: 10_000 }, '150/300, 15 a second, about 10 s left'],
    [{ done: 3, total: 300, elapsedMs: 6_000 }, '3/300, 30 a minute, about 9 min 54 s left'],
    [{ done: 1, total: 5000, elapsedMs: 2_000 }, '1/5000, 30 a minute, about 2 h 47 min left'],
    [{ done: 300, total: 300, elapsedMs: 214_000 }, '300/300, 1.4 a second, 3 min 34 s in all'],
  ])('%j → %s', (tally, words) => expect(progressWords(tally)).toBe(words));

  it('the time left is the rate so far applied to what is left, over generated counts', () => {
    for (let total = 1; total <= 400; total += 37) {
      for (let done = 1; done < total; done += 11) {
        const elapsedMs = 1000 + done * 317;
        const words = progressWords({ done, total, elapsedMs });
        expect(words.startsWith(`${done}/${total}, `)).toBe(true);
        const left = /about (.*) left$/.exec(words)![1];
        expect(left).toBe(duration(((total - done) * elapsedMs) / done));
      }
    }
  });

  it('durations and rates read as a person says them', () => {
    expect([duration(400), duration(59_600), duration(60_000), duration(3_599_000), duration(3_600_000), duration(3_599_600 + 3_600_000)]).toEqual(['0 s', '1 min', '1 min', '59 min 59 s', '1 h', '2 h']);
    expect([rateWords(0.001), rateWords(0.5), rateWords(1), rateWords(0.99), rateWords(9.96), rateWords(10.4)]).toEqual(['1 a minute', '30 a minute', '1.0 a second', '1.0 a second', '10 a second', '10 a second']);
  });
});

describe('progressFrame: the terminal line', () => {
  it('redraws in place: \\r and erase, a bar, the words, the last name; never wider than the terminal', () => {
    expect(progressFrame({ done: 150, total: 300, elapsedMs: 10_000 }, 'alice', 100)).toBe('\r\x1b[K[##########----------] 150/300, 15 a second, about 10 s left  alice');
    for (const columns of [20, 40, 60, 80, 120]) {
      const frame = progressFrame({ done: 7, total: 300, elapsedMs: 2_500 }, 'a'.repeat(200), columns);
      expect(Array.from(frame.slice('\r\x1b[K'.length)).length).toBeLessThan(columns);
    }
  });

  it("a name's control characters are not drawn", () => {
    expect(progressFrame({ done: 1, total: 2, elapsedMs: 1 }, '\x1b[2J\rx', 80).slice(4)).not.toMatch(/[\x1b\r]/);
  });
});

describe('BatchProgress', () => {
  /** A clock moved by hand, and the timer's tick called by hand. */
  function manualTime(): Ticking & { at: number; tick(): void; running: boolean } {
    const time = {
      at: 0,
      running: false,
      ticks: [] as (() => void)[],
      now: () => time.at,
      every: (tick: () => void) => {
        time.ticks.push(tick);
        time.running = true;
        return () => { time.running = false; };
      },
      tick: () => time.ticks.forEach((t) => t()),
    };
    return time;
  }
  const output = (columns = 100) => ({ text: '', columns, write(s: string) { this.text += s; } });
  const result = (name: string) => submission(name, [caseResult('test_a', { status: 'passed' })], { score: 1, maxScore: 1 });

  it('on a terminal: a line from the first second, before any submission is done, redrawn each second, erased at the end', () => {
    const out = output(120);
    const time = manualTime();
    const progress = new BatchProgress(out, 'frame', time);
    progress.start(300, 0, 2);
    expect(out.text).toBe('\r\x1b[K[--------------------] 0/300, 0 s in');
    time.at = 1_000;
    time.tick();
    expect(out.text.endsWith('\r\x1b[K[--------------------] 0/300, 1 s in')).toBe(true);
    time.at = 4_000;
    progress.finished(result('alice'), 12);
    expect(out.text.endsWith('12/300, 3.0 a second, about 1 min 36 s left  alice')).toBe(true);
    expect(out.text).not.toContain('\n');
    time.at = 100_000;
    progress.finished(result('bob'), 300);
    time.at = 107_000;
    time.tick();
    expect(out.text.slice(out.text.lastIndexOf('\r'))).toBe('\r\x1b[K[####################] 300/300, 3.0 a second, 1 min 40 s in all; checking types, writing the gradebook');
    expect(out.text).not.toContain('\n');
    progress.stop();
    expect(time.running).toBe(false);
    expect(out.text.endsWith('\r\x1b[K')).toBe(true);
  });

  it('in a log: a line at the start and one per finished submission, each ending in a line break; no timer', () => {
    const out = output();
    const time = manualTime();
    const progress = new BatchProgress(out, 'log', time);
    progress.start(300, 20, 2);
    time.at = 4_000;
    progress.finished(result('alice'), 12);
    progress.stop();
    expect(out.text).toBe('grading 300 submissions (20 kept from an earlier run), 2 at a time\nalice: 1/1  [12/300, 3.0 a second, about 1 min 36 s left]\n');
    expect(time.running).toBe(false);
  });

  it('a terminal that gives no width (0) is drawn 80 columns wide', () => {
    const out = output(0);
    const time = manualTime();
    const progress = new BatchProgress(out, 'frame', time);
    progress.start(300, 0, 2);
    time.at = 1_234_000;
    progress.finished(result('x'.repeat(300)), 1);
    expect(out.text.slice(out.text.lastIndexOf('\r')).length).toBe('\r\x1b[K'.length + 79);
  });

  it('nothing to grade (every result kept): nothing drawn', () => {
    const out = output();
    const progress = new BatchProgress(out, 'frame', manualTime());
    progress.start(0, 12, 2);
    progress.stop();
    expect(out.text).toBe('');
  });
});

it('progressMode: a terminal redraws a line; a pipe, a file or a dumb terminal gets lines', () => {
  expect(progressMode({ isTTY: true }, {})).toBe('frame');
  expect(progressMode({ isTTY: true }, { TERM: 'dumb' })).toBe('log');
  expect(progressMode({ isTTY: false }, {})).toBe('log');
  expect(progressMode({}, {})).toBe('log');
});
