import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { closedToOthers } from './runtimeReach';

const top = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-'));
afterAll(() => fs.rmSync(top, { recursive: true, force: true }));

it('names the outermost folder others may not enter, at any depth, and nothing when every one may be entered', () => {
  const deep = path.join(top, 'a', 'b', 'c');
  fs.mkdirSync(deep, { recursive: true });
  for (const dir of [top, path.join(top, 'a'), path.join(top, 'a', 'b'), deep]) fs.chmodSync(dir, 0o755);
  expect(closedToOthers(deep)).toBeUndefined();
  for (const [closed, mode] of [[path.join(top, 'a', 'b'), 0o750], [path.join(top, 'a'), 0o700], [deep, 0o710]] as const) {
    fs.chmodSync(closed, mode);
    expect(closedToOthers(deep)).toEqual({ folder: closed, mode: mode.toString(8) });
    fs.chmodSync(closed, 0o755);
  }
  // Two closed on the way: the outer one is the one to open first.
  fs.chmodSync(path.join(top, 'a'), 0o700);
  fs.chmodSync(deep, 0o700);
  expect(closedToOthers(deep)?.folder).toBe(path.join(top, 'a'));
});
