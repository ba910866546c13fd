import { describe, expect, it } from 'vitest';
import { readRunOutput, suiteSection } from './suite';

describe('the suite bench reads what a .ci/run printed', () => {
  const output = [
    '\x1b[2m   Duration \x1b[22m 812.40s (transform 2.1s, setup 0ms)',
    '   Duration  3.20s (the browser run)',
    '1640 passed, 0 failed, 0 skipped',
    '0m0.012s 0m0.004s',
    '21m3.500s 2m1.250s',
  ].join('\n');

  it("takes the children's CPU from the last `times` line, the tally and the first vitest duration", () => {
    expect(readRunOutput(output)).toEqual({ cpuSeconds: 21 * 60 + 3.5 + 2 * 60 + 1.25, tally: '1640 passed, 0 failed, 0 skipped', vitestSeconds: 812.4 });
  });

  it('says so when a run printed no tally, and leaves the CPU unknown without `times`', () => {
    const read = readRunOutput('npm ERR! missing script');
    expect(read.tally).toBe('no tally printed');
    expect(read.cpuSeconds).toBeNaN();
    expect(read.vitestSeconds).toBeUndefined();
  });

  it('judges each run against its own goal', () => {
    const base = { cpuSeconds: 600, cpuCounted: { by: 'kernel' as const }, tally: 't', loadAtStart: 0.5, ok: true };
    const rows = suiteSection([{ ...base, busy: false, wallSeconds: 384 }, { ...base, busy: true, wallSeconds: 792 }], '').filter((line) => /^\| (on its own|beside)/.test(line));
    expect(rows).toHaveLength(2);
    const [quiet, busy] = rows;
    expect(quiet).toMatch(/on its own .*\*\*0\.80×\*\* the 8 min goal \(met\)/);
    expect(busy).toMatch(/beside two busy loops .*\*\*1\.10×\*\* the 12 min goal \(not met\)/);
  });

  it("says who counted the CPU, and why not the kernel when it could not", () => {
    const base = { busy: false, wallSeconds: 240, cpuSeconds: 600, tally: 't', loadAtStart: 0.5, ok: true };
    const kernel = suiteSection([{ ...base, cpuCounted: { by: 'kernel' } }], '').join('\n');
    expect(kernel).toMatch(/counted by the kernel in a control group/);
    const shell = suiteSection([{ ...base, cpuCounted: { by: 'shell', why: 'no control group hierarchy that counts CPU is mounted' } }], '').join('\n');
    expect(shell).toMatch(/the shell's `times` counted it, an undercount: .*\(no control group could be made: no control group hierarchy that counts CPU is mounted\)/);
  });
});
