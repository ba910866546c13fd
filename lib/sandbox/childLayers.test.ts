import { describe, expect, it } from 'vitest';
import { limits } from './childLayers';
import { findTools } from './probeLayers';

describe('the memory cap as prlimit sets it', () => {
  it.runIf(findTools().prlimit)('a cap of a fraction of a MiB (--memory 1536.3) is still in force, in whole bytes', () => {
    const layer = limits(findTools(), 1536.3 * 1024 ** 2, false);
    expect(layer.gaps).toEqual([]);
    const as = layer.prefix.find((arg) => arg.startsWith('--as='))!;
    expect(as).toMatch(/^--as=\d+$/);
  });
});
