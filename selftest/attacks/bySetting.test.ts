/**
 * Which attacks the settings other than this machine's grade again (attacks/bySetting.ts): what
 * reaches past its answers is found however it is written, and no attack whose expectation differs
 * between settings, or that a limit holds, is left to one setting.
 */
import { describe, expect, it } from 'vitest';
import { attacksTheSettingMayChange, expectationsIn, layoutsTheSettingMayChange, reachIn, reachingKitExports, SETTINGS, whySettingMatters } from './bySetting';
import { LAYOUTS } from './layouts';

describe('what reaches past its answers', () => {
  it.each([
    ['process.kill(process.ppid)', 'process'],
    ["const fs = require('fs');", 'require'],
    ["const net = await import('node:net');", 'import('],
    ['globalThis.isNaN = () => false;', 'globalThis'],
    ['throw new Error(`env: ${JSON.stringify(process.env)}`);', 'process'],
    ["const fs = nodeModule<Fs>('fs');", 'nodeModule'],
  ])('%s: %s', (source, reached) => {
    expect(reachIn(source)).toBe(reached);
  });

  it.each([
    '// process.exit(0) would end it\nexport const x = 1;',
    '/* require(fs) */ export const x = 1;',
    "throw new Error('the process running it, require and globalThis are words here');",
    'export function softmax(x: Tensor) { return x.exp(); }',
    'writeChannel(frame({ id: 1 })); // its own channel, as every setting hands it',
  ])('nothing in: %s', (source) => {
    expect(reachIn(source)).toBe('');
  });

  it("finds the kit's helpers that reach, through the declarations they use, and no other; the channel's route reaches only the channel", () => {
    const kit = [
      'const ROUTES = [(name: string) => require(name)];',
      'function loader() { return ROUTES[0]; }',
      'export function load(name: string) { return loader()(name); }',
      'export function viaLoad() { return load("fs"); }',
      'export function toChannel(bytes: Uint8Array) { load("fs").writeSync(3, bytes); }',
      '// process is only named here',
      'export function pure(x: number) { return x + 1; }',
      "export const LABEL = 'process';",
    ].join('\n');
    expect(reachingKitExports(kit, ['toChannel'])).toEqual(['load', 'viaLoad']);
    expect(reachingKitExports(kit, [])).toEqual(['load', 'toChannel', 'viaLoad']);
    expect(reachingKitExports()).toEqual(expect.arrayContaining(['nodeModule', 'findUpwards', 'writableCandidates']));
    expect(reachingKitExports()).not.toContain('writeChannel');
    expect(reachIn('export const y = viaLoad();', reachingKitExports(kit, ['toChannel']))).toBe('viaLoad');
    expect(reachIn('export const y = pure(LABEL); toChannel(y);', reachingKitExports(kit, ['toChannel']))).toBe('');
  });
});

describe('the attacks graded in every setting', () => {
  const attacks = Object.keys(expectationsIn('namespaces'));
  const graded = new Set(attacksTheSettingMayChange(attacks));

  it('every attack whose expectation differs between settings, or that only a limit ends', () => {
    const differs = attacks.filter((name) => new Set(SETTINGS.map((s) => JSON.stringify(expectationsIn(s)[name], (_, v: unknown) => (v instanceof RegExp ? String(v) : v)))).size > 1);
    expect(differs.filter((name) => !graded.has(name))).toEqual([]);
    const limited = attacks.filter((name) => SETTINGS.some((s) => {
      const { statuses, timeoutMs } = expectationsIn(s)[name];
      return timeoutMs !== undefined || (statuses.length > 0 && statuses.every((status) => status === 'timeout' || status === 'crashed'));
    }));
    expect(limited).toEqual(expect.arrayContaining(['hang_in_softmax', 'memory_bomb_heap']));
    expect(limited.filter((name) => !graded.has(name))).toEqual([]);
  });

  it('the others reach nothing: each says why it matters, or nothing', () => {
    const once = attacks.filter((name) => !graded.has(name));
    expect(once.length).toBeGreaterThan(0);
    expect(once.map(whySettingMatters).filter(Boolean)).toEqual([]);
    expect([...graded].filter((name) => whySettingMatters(name) === '')).toEqual([]);
  });
});

describe('the folder layouts graded in every setting', () => {
  const layouts = Object.keys(LAYOUTS);
  const graded = new Set(layoutsTheSettingMayChange(layouts));

  it('every layout the intake decides (links, special files, hard links, each cap crossed, sources that do not load); left to one setting only text nested to the bound or past it', () => {
    for (const name of ['link_index_to_reference', 'hard_link_outside', 'entry_is_a_fifo', 'device_beside_code', 'depth_one_folder_too_deep', 'syntax_error', 'missing_import']) {
      expect(graded.has(name), name).toBe(true);
    }
    const once = layouts.filter((name) => !graded.has(name));
    expect(once.length).toBeGreaterThan(0);
    expect(once.filter((name) => !/^nested_/.test(name) || !(LAYOUTS[name].status === 'passes' || /nesting too deep/.test(String(LAYOUTS[name].reason))))).toEqual([]);
  });
});
