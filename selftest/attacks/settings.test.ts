/**
 * The grader in the containment settings this machine is not in, simulated from root (selftest/simulatedSettings.ts):
 * - root without CAP_SYS_ADMIN, as in Docker: the grader runs under
 *   `setpriv --bounding-set -sys_admin --inh-caps -sys_admin`, so `unshare` and `mount` fail as
 *   Docker's defaults make them fail;
 * - an unprivileged user (uid UNPRIVILEGED_UID), whose kernel allows user namespaces;
 * - the same user where user namespaces are refused (an `unshare` that refuses comes first on PATH,
 *   as Ubuntu's AppArmor restriction or a container's seccomp profile refuses it).
 * In each: the reference gets full marks from `npm run grade` and the result names the setting;
 * one batch of the attacks the setting can change (attacks/bySetting.ts: those that reach past their
 * answers, those a limit holds, those some setting cannot contain), every folder layout the
 * intake decides and a correct submission ends with a row for each, the correct one at full marks,
 * each attack held as attacks/expectations.ts says for that setting (or listed there as
 * uncontained, and in docs/security.md). What no setting changes (the other attacks, the nesting
 * layouts, the verdicts of correct and buggy code) is graded once, in this machine's setting
 * (attacks.test.ts, the catalogue's files).
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchOutcome } from '../../lib/batch/gradeBatch';
import { prepareChild } from '../../lib/grading/grade';
import { readManifest, sha256 } from '../../lib/model/manifest';
import type { SubmissionResult } from '../../lib/model/result';
import { FIXTURES_DIR, PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { containmentReport } from '../../lib/sandbox/containment';
import { visibleCases } from '../../tests/cases';
import { BUGS } from '../catalogue';
import { attacksTheSettingMayChange, layoutsTheSettingMayChange } from './bySetting';
import { materialize, tempDir } from '../grader/materialize';
import {
  BUDGET_MS, expectationsFor, KILLS_THE_GRADER, layoutProblems, MEMORY_BYTES, problems, TIMEOUT_MS, uncontained, type Expectation, type Setting,
} from './expectations';
import { attackFolder, CARRIED_BUGS, layoutFolder, ownMultiHead, runIsolated } from './folders';
import { CARRIED_REASON } from '../../tests/carryForward/carryForward';
import { GRADED_CASES } from '../../tests/cases';
import { folderModes, leftOnTheMachine, modesChanged, SocketProbes } from './machine';
import { LAYOUTS, makeOutside } from './layouts';
import { AS_USER, openTo, WITHOUT_SYS_ADMIN } from '../simulatedSettings';

const FULL_MARKS = visibleCases().reduce((sum, c) => sum + c.points, 0);
/**
 * The honest mistake graded with --carry-forward beside the carry attacks the setting may change:
 * its points carried show that carrying works in this setting, so that "carries nothing" says something.
 */
const CARRIED_CONTROL = CARRIED_BUGS[0];
/** The three settings grade at once, each a batch of ~40 submissions: generous, for a loaded CI runner. */
const GRADING_LIMIT_MS = 900_000;

interface Simulated {
  setting: Setting;
  title: string;
  prefix: string[];
  /** PATH for the grader, when it differs. */
  path?: (work: string) => string;
  /** Why this machine cannot simulate it, or undefined. */
  unavailable?: () => string | undefined;
}

const refusesUserNamespaces = (): string | undefined => {
  const run = spawnSync(AS_USER[0], [...AS_USER.slice(1), 'unshare', '--user', '--map-root-user', 'true'], { encoding: 'utf8' });
  return run.status === 0 ? undefined : `user namespaces are refused here: ${run.stderr.trim()}`;
};

/** A directory holding an `unshare` that refuses, put first on PATH. */
function refusingUnshare(work: string): string {
  const dir = path.join(work, 'refusing-tools');
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'unshare'), '#!/bin/sh\necho "unshare: unshare failed: Operation not permitted" >&2\nexit 1\n', { mode: 0o755 });
  return `${dir}${path.delimiter}${process.env.PATH ?? ''}`;
}

const SIMULATED: Simulated[] = [
  { setting: 'own-uids', title: 'root without CAP_SYS_ADMIN (Docker)', prefix: WITHOUT_SYS_ADMIN },
  { setting: 'user-namespaces', title: 'an unprivileged user, user namespaces allowed', prefix: AS_USER, unavailable: refusesUserNamespaces },
  { setting: 'same-user', title: 'an unprivileged user, user namespaces refused', prefix: AS_USER, path: refusingUnshare },
];

const IS_ROOT = process.getuid?.() === 0;
/** Only root can take on the other settings; this machine's own is covered by attacks.test.ts. */
const here = IS_ROOT ? containmentReport(prepareChild()).setting : undefined;
const settings = SIMULATED.filter((s) => IS_ROOT && s.setting !== here);

const fixtureHashesChanged = (): string[] => {
  const manifest = readManifest(FIXTURES_DIR);
  return Object.entries(manifest.fixtures).flatMap(([key, entry]) =>
    Object.entries(entry.files)
      .filter(([name, file]) => sha256(fs.readFileSync(path.join(FIXTURES_DIR, key, name))) !== file.sha256)
      .map(([name]) => `fixtures/${key}/${name}`),
  );
};

/** The self-test's sockets per setting (they grade at once), that the attacks are told about; nothing may reach them. */
const probes = new Map<Setting, SocketProbes>();
/** When the settings began grading: what a child left on the machine since is found by leftOnTheMachine. */
const started = Date.now();
/** The folders anyone may write, and their modes: none may change. */
const modes = folderModes();
beforeAll(async () => {
  for (const { setting } of settings) {
    const probe = new SocketProbes(setting);
    await probe.listen();
    probes.set(setting, probe);
  }
  for (const start of starts) start();
});
afterAll(() => {
  for (const probe of probes.values()) probe.close();
});

interface Graded {
  batch: { value?: BatchOutcome; failure?: string };
  /** The carry-forward attacks beside honest mistakes it must carry, graded with --carry-forward on every case. */
  carry: { value?: BatchOutcome; failure?: string };
  reference: { status: number | null; log: string; json?: { score: number; extra_data: { containment?: { setting: string } } } };
}

/** Grades the reference and the batch as `simulated` (the three settings run at once: most of a batch is waiting on time limits). */
async function gradeAs(simulated: Simulated, work: string, attacks: readonly string[]): Promise<Graded> {
  const env = { ...process.env, ...(simulated.path ? { PATH: simulated.path(work) } : {}) };
  const submissions = path.join(work, 'submissions');
  const out = path.join(work, 'out');
  openTo(work, out);
  for (const name of attacks) attackFolder(name, submissions, probes.get(simulated.setting)!.addresses);
  const context = makeOutside(work);
  for (const name of layoutsTheSettingMayChange(Object.keys(LAYOUTS))) layoutFolder(name, submissions, context);
  materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, 'good');
  for (const entry of fs.readdirSync(submissions, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory()) fs.chmodSync(path.join(entry.parentPath, entry.name), 0o755);
  }
  fs.chmodSync(submissions, 0o755);

  const json = path.join(out, 'reference.json');
  const [file, ...args] = [...simulated.prefix, process.execPath, RUN_TS, 'scripts/grade.ts', '--reference', '--json', json];
  const run = await new Promise<{ status: number | null; log: string }>((resolve) => {
    execFile(file, args, { cwd: PROJECT_ROOT, env, timeout: GRADING_LIMIT_MS }, (err, stdout, stderr) => {
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : -1) : 0, log: `${stdout}\n${stderr}` });
    });
  });
  const reference = { ...run, json: fs.existsSync(json) ? JSON.parse(fs.readFileSync(json, 'utf8')) : undefined };
  const batch = await runIsolated<BatchOutcome>(
    ['batch', submissions, path.join(out, 'batch'), String(TIMEOUT_MS), String(MEMORY_BYTES), '2', String(BUDGET_MS)],
    simulated.prefix,
    env,
  );
  const carried = path.join(work, 'carried');
  for (const name of attacks.filter((a) => expectationsFor(simulated.setting)[a].carryForward)) attackFolder(name, carried, probes.get(simulated.setting)!.addresses);
  ownMultiHead(BUGS.find((b) => b.name === CARRIED_CONTROL)!.file, carried, `honest_${CARRIED_CONTROL}`);
  openTo(work, path.join(out, 'carry'));
  for (const entry of fs.readdirSync(carried, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory()) fs.chmodSync(path.join(entry.parentPath, entry.name), 0o755);
  }
  fs.chmodSync(carried, 0o755);
  const carry = await runIsolated<BatchOutcome>(
    ['batch', carried, path.join(out, 'carry', 'out'), String(TIMEOUT_MS), String(MEMORY_BYTES), '2', String(BUDGET_MS), 'carry'],
    simulated.prefix,
    env,
  );
  return { batch, reference, carry };
}

const runs = new Map<Setting, Promise<Graded>>();
/** Started once the probe's port is open (the attacks are told it): all settings at once. */
const starts: (() => void)[] = [];

for (const simulated of settings) describe(`the grader as ${simulated.title}`, () => {
  const work = tempDir(`setting-${simulated.setting}`);
  const why = simulated.unavailable?.();
  const attacks = attacksTheSettingMayChange(Object.keys(expectationsFor(simulated.setting)))
    .filter((name) => !(KILLS_THE_GRADER()[simulated.setting] ?? []).includes(name));
  const layouts = layoutsTheSettingMayChange(Object.keys(LAYOUTS));
  let batch: Graded['batch'] = {};
  let carry: Graded['carry'] = {};
  let reference: Graded['reference'] | undefined;
  if (!why) starts.push(() => runs.set(simulated.setting, gradeAs(simulated, work, attacks)));

  beforeAll(async () => {
    if (why) return;
    ({ batch, reference, carry } = await runs.get(simulated.setting)!);
  }, GRADING_LIMIT_MS);

  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  it.skipIf(why)(`npm run grade -- --reference: full marks, and the result says it ran as ${simulated.setting}`, () => {
    expect(reference?.status, reference?.log).toBe(0);
    expect(reference?.json?.score).toBe(FULL_MARKS);
    expect(reference?.json?.extra_data.containment?.setting).toBe(simulated.setting);
  });

  const result = (name: string): SubmissionResult | undefined => batch.value?.graded.find((r) => r.name === name);

  it.skipIf(why)('a batch of the attacks and folder layouts the setting may change and a correct submission: every row, each as it should be', () => {
    expect(batch.failure ?? '').toBe('');
    const names = [...attacks, ...layouts, 'good'].sort();
    expect(batch.value!.graded.map((r) => r.name).sort()).toEqual(names);
    const found: Record<string, string[]> = {};
    const expectations = expectationsFor(simulated.setting);
    // In a batch the cores are shared: an attack that must reach the memory cap first may meet its time limit instead.
    const inBatch = (e: Expectation): Expectation => (e.alone ? { ...e, statuses: [...e.statuses, 'timeout'], reason: undefined } : e);
    for (const name of attacks) found[name] = problems(result(name)!, inBatch(expectations[name]));
    for (const name of layouts) found[name] = layoutProblems(result(name)!, LAYOUTS[name]);
    found.good = result('good')!.score === FULL_MARKS ? [] : [`score ${result('good')!.score}, expected ${FULL_MARKS}`];
    expect(Object.fromEntries(Object.entries(found).filter(([, list]) => list.length > 0))).toEqual({});
  });

  it.skipIf(why)(`--carry-forward: its attacks the setting may change carry nothing; an honest ${CARRIED_CONTROL} under a multi-head attention that calls it carries every multi-head case`, () => {
    expect(carry.failure ?? '').toBe('');
    const expectations = expectationsFor(simulated.setting);
    const found: Record<string, string[]> = {};
    for (const graded of carry.value!.graded) {
      if (graded.name.startsWith('honest_')) {
        const multiHead = graded.cases.filter((c) => c.fn === 'multihead_self_attention');
        // Passed by carrying, or on its own where the mistake does not reach the case (attacks.test.ts says which).
        found[graded.name] = multiHead.filter((c) => c.status !== 'passed' || (c.reason !== CARRIED_REASON && c.reason !== '') || (!c.hidden && c.reason !== CARRIED_REASON))
          .map((c) => `${c.name} ${c.status}: ${c.reason.slice(0, 200)}`);
        if (multiHead.length !== GRADED_CASES.filter((c) => c.fn === 'multihead_self_attention').length) found[graded.name].push('hidden cases not graded');
      } else found[graded.name] = problems(graded, expectations[graded.name]);
    }
    expect(Object.fromEntries(Object.entries(found).filter(([, list]) => list.length > 0))).toEqual({});
    expect(Object.keys(found).sort()).toEqual([...attacks.filter((a) => expectations[a].carryForward), `honest_${CARRIED_CONTROL}`].sort());
  });

  it.skipIf(why)('every result of code that ran says this setting; no fixture changed; no socket reached unless listed as uncontained; nothing left on the machine', () => {
    const settingsSeen = new Set(batch.value!.graded.flatMap((r) => (r.containment ? [r.containment.setting] : [])));
    expect([...settingsSeen]).toEqual([simulated.setting]);
    expect(fixtureHashesChanged()).toEqual([]);
    const open = uncontained(simulated.setting);
    if (!('open_socket' in open) && !('unix_socket' in open)) expect(probes.get(simulated.setting)!.connections).toBe(0);
    // Taken away either way; held to nothing only where this setting contains unix sockets.
    const left = leftOnTheMachine(started, [work], [probes.get(simulated.setting)!.tag]);
    if (!('unix_socket' in open)) expect(left).toEqual([]);
    expect(modesChanged(modes)).toEqual([]);
  });
});

describe('docs/security.md lists what each setting cannot contain', () => {
  const doc = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'security.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## What each setting cannot contain'));
  it.each(['namespaces', 'own-uids', 'user-namespaces', 'same-user'] as Setting[])('%s', (setting) => {
    const listed = Object.keys(uncontained(setting)).filter((name) => name !== 'open_socket' && name !== 'unix_socket');
    const part = section.slice(section.indexOf(`\`${setting}\``));
    expect(section).toContain(`\`${setting}\``);
    expect(listed.filter((name) => !part.includes(`\`${name}\``))).toEqual([]);
  });
  it('open_socket and unix_socket, where Node has no network permission and no syscall filter is in force', () => {
    expect(section).toContain('`open_socket`');
    expect(section).toContain('`unix_socket`');
  });
});
