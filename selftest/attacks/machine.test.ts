/**
 * The check of the machine (machine.ts leftOnTheMachine) counts what this run's attacks left and
 * what Node or the kernel writes, and leaves alone the files another run's attacks left on purpose
 * (an attack file beside it grading a setting that cannot contain unix sockets).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/paths';
import { LEFT_MARK } from './kit';
import { leftIn, SocketProbes } from './machine';

// Below the project's cache, deeper than any other run looks: what is made here is for this test alone.
const folder = fs.mkdtempSync(path.join(PROJECT_ROOT, 'node_modules', '.cache', 'left-check-'));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

describe('what a run left on the machine', () => {
  it("counts and removes its own attacks' files and untagged ones; another run's it neither counts nor removes", () => {
    const [mine, theirs] = [new SocketProbes('mine'), new SocketProbes('theirs')];
    expect(mine.tag).not.toBe(theirs.tag);
    const since = Date.now() - 1000;
    const names = {
      own: `${LEFT_MARK}${mine.tag}-1234-0.sock`,
      other: `${LEFT_MARK}${theirs.tag}-1234-0.sock`,
      untagged: `${LEFT_MARK}5678.json`,
      snapshot: 'Heap.20261127.1.2.3.heapsnapshot',
    };
    for (const name of Object.values(names)) fs.writeFileSync(path.join(folder, name), '');
    // In this folder alone: a look at the whole machine would take away what runs beside this one left for their own checks.
    const found = leftIn([folder], since, [mine.tag]).map((file) => path.basename(file));
    expect(found.sort()).toEqual([names.own, names.untagged, names.snapshot].sort());
    expect(fs.readdirSync(folder)).toEqual([names.other]);
    // Without tags of its own (a run that asks for everything), it counts the other run's too.
    expect(leftIn([folder], since).map((file) => path.basename(file))).toEqual([names.other]);
  });
});
