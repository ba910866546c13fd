import { describe, expect, it } from 'vitest';
import { KEPT_BELOW, withSection } from './benchmarksDoc';
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

describe("the suite bench's section of docs/benchmarks.md", () => {
  const runs = [{ busy: false, wallSeconds: 400, cpuSeconds: 700, cpuCounted: { by: 'kernel' as const }, tally: 't', loadAtStart: 0.5, ok: true }];
  it('replaces its table and keeps what was written below it, down to the next section', () => {
    const old = suiteSection([{ ...runs[0], wallSeconds: 900 }], '(old footer)');
    const doc = ['# Benchmarks', '', ...old, '', 'What the figures mean, by hand.', '', '## Next', 'next section', ''].join('\n');
    const updated = withSection(doc, suiteSection(runs, '(new footer)'));
    expect(updated).toContain('(new footer)');
    expect(updated).not.toContain('(old footer)');
    expect(updated).not.toMatch(/1\.88×/);
    expect(updated).toContain('\n\nWhat the figures mean, by hand.\n\n## Next\nnext section\n');
    expect(updated.split(KEPT_BELOW)).toHaveLength(2);
  });

  it('replaces a section written before it kept anything whole, down to the next section', () => {
    const doc = ['# Benchmarks', '', suiteSection(runs, '')[0], '', 'an old table', '', '## Next', ''].join('\n');
    const updated = withSection(doc, suiteSection(runs, '(footer)'));
    expect(updated).not.toContain('an old table');
    expect(updated).toContain(`${KEPT_BELOW}\n\n## Next\n`);
  });
});
