import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseNpy } from '../npy';
import { Tensor } from '../tensor';
import { checkFixtures, manifestFile, npyFile, writeFixtures, type BuiltFile } from './fixtureFiles';
import { sha256 } from './manifest';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const temp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fixture-files-'));
  dirs.push(dir);
  return dir;
};

describe('an assignment\'s fixtures folder, written and checked from one build', () => {
  const x = npyFile('case/x.npy', new Tensor(Float32Array.from([1, 2, 3, 4]), [2, 2]), 7, 'N(0,1)');
  const build: BuiltFile[] = [x.file, manifestFile({ about: 'test', fixtures: { case: { hidden: false, params: {}, files: { 'x.npy': x.entry }, mistakes: {} } } })];

  it('npyFile: the entry describes the bytes', () => {
    expect(x.entry).toEqual({ shape: [2, 2], dtype: 'float32', seed: 7, recipe: 'N(0,1)', sha256: sha256(x.file.bytes) });
    expect(Array.from(parseNpy(Buffer.from(x.file.bytes), 'x.npy').data)).toEqual([1, 2, 3, 4]);
  });

  it('a written build checks clean; a changed, missing or extra file is named from its assignment\'s folder', () => {
    // An assignment outside the project: each file is named from the assignment's folder, by that
    // folder's name, since "x.npy" alone could be any case's.
    const dir = path.join(temp(), 'course', 'fixtures');
    writeFixtures(dir, build);
    expect(checkFixtures(dir, build)).toEqual([]);
    fs.appendFileSync(path.join(dir, 'case', 'x.npy'), '\0');
    fs.writeFileSync(path.join(dir, 'case', 'y.npy'), '');
    fs.rmSync(path.join(dir, 'manifest.json'));
    expect(checkFixtures(dir, build)).toEqual([
      'course/fixtures/case/x.npy: differs from what the generator makes', 'course/fixtures/manifest.json: missing', 'course/fixtures/case/y.npy: not made by the generator',
    ]);
  });

  it('writing again restores every file and removes the ones no case uses', () => {
    const dir = temp();
    writeFixtures(dir, build);
    fs.writeFileSync(path.join(dir, 'case', 'x.npy'), 'changed');
    fs.mkdirSync(path.join(dir, 'gone'));
    fs.writeFileSync(path.join(dir, 'gone', 'z.npy'), '');
    writeFixtures(dir, build);
    expect(checkFixtures(dir, build)).toEqual([]);
  });
});
