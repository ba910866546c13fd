import { describe, expect, it } from 'vitest';
import { busyTimer, fairShare } from './busyClock';

describe('busyClock', () => {
  it('a share of a CPU is in (0, 1]', () => {
    const share = fairShare();
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThanOrEqual(1);
  });

  it('a timer fires once its charged time passes, never before that much wall time, and not after clear()', async () => {
    const started = Date.now();
    const fired = await new Promise<number>((resolve) => busyTimer(300, () => resolve(Date.now() - started)));
    expect(fired).toBeGreaterThanOrEqual(300);
    let late = false;
    const timer = busyTimer(250, () => (late = true));
    timer.clear();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(late).toBe(false);
  });
});
