/**
 * The attacks are real: with a bare, uncontained child (plain `node` as the grader's user) the
 * checks that attacks.test.ts and settings.test.ts hold the contained grader to must fail for the
 * disk, import, spawn and socket attacks.
 *
 * A file of its own, run after every other (vitest.selftest.config.mts): uncontained, leave_files
 * does leave files in the folders anyone may write, which the other attack files' checks of the
 * machine would find as theirs.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { prepareChild } from '../../lib/grading/grade';
import { buildChildRuntime } from '../../lib/sandbox/build';
import { containmentReport } from '../../lib/sandbox/containment';
import { grade } from '../grader/harness';
import { tempDir } from '../grader/materialize';
import { BUDGET_MS, expectationsFor, MEMORY_BYTES, OUTPUT_CAP, problems, TIMEOUT_MS } from './expectations';
import { attackFolder } from './folders';
import { leftOnTheMachine, SocketProbes } from './machine';

const EXPECTED = expectationsFor(containmentReport(prepareChild(MEMORY_BYTES)).setting);
const probes = new SocketProbes('bare');
const started = Date.now();
const root = tempDir('attacks-bare');
const leftHere = () => leftOnTheMachine(started, [], [probes.tag]);

/** What each attack does besides its grade, when nothing stops it. */
const SIDE_EFFECTS: Record<string, () => string[]> = {
  open_socket: () => probes.reached(),
  unix_socket: () => [...probes.reached(), ...leftHere()],
  leave_files: () => leftHere(),
};

beforeAll(() => probes.listen());
afterAll(() => {
  probes.close();
  fs.rmSync(root, { recursive: true, force: true });
  // What the uncontained attacks left is taken away: the machine is as it was for whatever runs next.
  leftHere();
});

describe('without containment (a bare node child) the same checks fail: the attacks are real', () => {
  // print_environment is left out: the session gives every child an empty environment, bare or not.
  const harmless = ['read_expected_from_disk', 'reference_at_runtime', 'spawn_process', 'open_socket', 'unix_socket', 'leave_files'].filter((n) => n in EXPECTED && !EXPECTED[n].mayPass);
  it.concurrent.for(harmless)('%s', async (name, { expect }) => {
    const child = { file: process.execPath, args: [buildChildRuntime().entry], missing: [] };
    const options = { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS, outputCap: OUTPUT_CAP, child };
    const result = await grade(attackFolder(name, root, probes.addresses), name, options);
    expect([...problems(result, EXPECTED[name]), ...(SIDE_EFFECTS[name]?.() ?? [])]).not.toEqual([]);
  });
});
