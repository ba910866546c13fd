/**
 * The Gradescope bundle installed exactly as its setup.sh installs it, then graded in each setting
 * the contract names: root with namespaces, root without CAP_SYS_ADMIN (Gradescope's container) and
 * an unprivileged user (selftest/simulatedSettings.ts). setup.sh's apt and Node download cannot run
 * here; what follows them is a script of the bundle's own (setup-packages.sh), run here as the
 * bundle has it, into an empty node_modules, offline from the npm cache the project's own `npm ci`
 * filled. One bundle and one install serve the three settings. A second copy of the bundle, its
 * `npm ci` answered with that install less the optional packages (what `npm ci --omit=optional`, as
 * the bundle once ran it, leaves), must stop at setup-packages.sh's check: what npm omits is npm's
 * to get right, the check that stops it is ours, so npm does not install a second time.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle } from '../lib/gradescope/bundle';
import { AUTOGRADER_ERROR_TEST } from '../lib/gradescope/errorResults';
import { SETUP_PACKAGES } from '../lib/gradescope/launchers';
import { NATIVE_PACKAGES } from '../lib/gradescope/nativePackages';
import { ACTIVE_LTS_RELEASE } from '../lib/gradescope/nodeRelease';
import { readZip, writeZip } from '../lib/gradescope/zip';
import { buildHandout } from '../lib/release';
import { GRADED_CASES } from '../tests/cases';
import { tempDir } from './grader/materialize';
import { autograderRoot, FULL_MARKS, reference, runAutograder, unpack, type AutograderRun, type Results } from './gradescopeKit';
import { AS_USER, openTo, WITHOUT_SYS_ADMIN } from './simulatedSettings';
import { ASSIGNMENT } from '../tests/assignment';

/** The test's own Node first: the install, its snapshot and every run use the same binary. */
const PATH_ENV = { PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` };
const IS_ROOT = process.getuid?.() === 0;

interface Install {
  status: number | null;
  output: string;
}

/** The bundle's own setup-packages.sh in `dir`, offline; `path` first on PATH when given (an `npm` of the test's own). */
function setupPackages(dir: string, searchPath: string = PATH_ENV.PATH): Promise<Install> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: searchPath };
  // `npm run selftest` hands its scripts the outer npm's settings as npm_config_*: only where its cache and config files are stays.
  for (const key of Object.keys(env)) if (/^npm_config_/i.test(key) && !/^npm_config_(cache|userconfig|globalconfig)$/i.test(key)) delete env[key];
  env.npm_config_offline = 'true';
  return new Promise((resolve) => {
    execFile('bash', [path.join(dir, SETUP_PACKAGES)], { env, encoding: 'utf8', maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : -1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

/**
 * `dir`'s node_modules as `npm ci --omit=optional` lays it out: `installed`'s, hard-linked, less every
 * package its lock marks optional (the platform packages that carry the native code), less the
 * caches the install's own run made. Returns a folder whose `npm` does nothing more, for PATH.
 */
function omitOptional(installed: string, dir: string): string {
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { optional?: boolean }> };
  const optional = Object.entries(lock.packages).filter(([key, entry]) => key && entry.optional).map(([key]) => key);
  expect(optional.length).toBeGreaterThan(0);
  execFileSync('cp', ['-al', path.join(installed, 'node_modules'), path.join(dir, 'node_modules')]);
  for (const key of [...optional, 'node_modules/.cache']) fs.rmSync(path.join(dir, key), { recursive: true, force: true });
  const bin = path.join(temp, 'npm-omit-optional');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\n# npm ci --omit=optional: its tree is laid out already.\nexit 0\n', { mode: 0o755 });
  return `${bin}${path.delimiter}${PATH_ENV.PATH}`;
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The native files the check says the declared packages loaded (scripts/check-packages.ts prints them). */
const declaredNativeFiles = (output: string): string[] =>
  [...output.matchAll(/^check-packages: \S+ loads (.+\.node)$/gm)].flatMap((match) => match[1].split(', '));

/**
 * Removes every native file of the install that no declared package loaded: the grader must grade
 * without them, or lib/gradescope/nativePackages.ts leaves out a package it needs. Returns them.
 */
function removeUndeclaredNative(dir: string, declared: readonly string[]): string[] {
  const native = fs.readdirSync(path.join(dir, 'node_modules'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.node'))
    .map((file) => `node_modules/${file.split(path.sep).join('/')}`);
  const removed = native.filter((file) => !declared.includes(file));
  for (const file of removed) fs.rmSync(path.join(dir, file));
  return removed;
}

type Outcome = { value?: { results: Results; log: string }; failure?: string };
const outcome = (run: Promise<{ results: Results; log: string }>): Promise<Outcome> =>
  run.then((value) => ({ value }), (err: unknown) => ({ failure: String(err) }));

let temp: string;
let installed: string;
let lacking: string;
let install: Install;
let lackingInstall: Install;
/** Where npm's cache lacks what the lock names, nothing can be installed offline: the tests are skipped. */
let notCached = false;
let removed: string[] = [];
const graded: { root?: Outcome; withoutSysAdmin?: Outcome; user?: Outcome } = {};

/** Grades the reference from the installed bundle in a fresh root, the results folder `owner`'s. */
function gradeReference(name: string, run: AutograderRun, owner?: 'user'): Promise<Outcome> {
  const root = autograderRoot(path.join(temp, 'runs'), name, { 'index.ts': reference() }, installed);
  if (owner === 'user') openTo(root, path.join(root, 'results'));
  return outcome(runAutograder(root, { ...run, env: PATH_ENV }));
}

beforeAll(async () => {
  temp = tempDir('gradescope-install');
  // The contained child runs as another uid when the tests run as root: it must be able to reach its runtime.
  fs.chmodSync(temp, 0o755);
  const entries = readZip(writeZip(buildBundle({ assignment: ASSIGNMENT, handout: buildHandout(ASSIGNMENT).files, nodeVersion: ACTIVE_LTS_RELEASE })));
  installed = path.join(temp, 'installed');
  lacking = path.join(temp, 'lacking');
  unpack(installed, entries);
  unpack(lacking, entries);
  install = await setupPackages(installed);
  notCached = /ENOTCACHED/.test(install.output);
  if (notCached || install.status !== 0) return;
  lackingInstall = await setupPackages(lacking, omitOptional(installed, lacking));
  removed = removeUndeclaredNative(installed, declaredNativeFiles(install.output));
  // Root first: its run builds the grader's runtime in the install's cache, which the unprivileged
  // user may read but not write, as with any install root made.
  graded.root = await gradeReference('root', {});
  if (!IS_ROOT) return;
  [graded.withoutSysAdmin, graded.user] = await Promise.all([
    gradeReference('without_sys_admin', { prefix: WITHOUT_SYS_ADMIN }),
    gradeReference('user', { prefix: AS_USER }, 'user'),
  ]);
}, 900_000);

afterAll(() => {
  if (temp) fs.rmSync(temp, { recursive: true, force: true });
});

describe('setup-packages.sh, as the bundle has it, into an empty node_modules (offline, from npm\'s cache)', () => {
  it('npm ci from the lock, then the check loads every package with native code the grader needs, then the type checks\' snapshot', (ctx) => {
    if (notCached) ctx.skip();
    expect(install.status, install.output).toBe(0);
    for (const { name } of NATIVE_PACKAGES) expect(install.output).toMatch(new RegExp(`^check-packages: ${literal(name)} loads \\S+\\.node`, 'm'));
    expect(install.output).toMatch(/^typecheck:snapshot: .* \(built in [\d.]+ s, Node v\d+/m);
  });

  it('without the optional packages (npm ci --omit=optional, as the bundle once had it): it stops at the check, naming every native package, before the snapshot', (ctx) => {
    if (notCached) ctx.skip();
    expect(lackingInstall, install.output).toBeDefined();
    expect(lackingInstall.status, lackingInstall.output).not.toBe(0);
    for (const { name, module } of NATIVE_PACKAGES) {
      expect(lackingInstall.output).toMatch(new RegExp(`^check-packages: ${literal(name)} cannot load \\(${literal(module)}: .+\\); the grader needs it: .*\`npm ci\` with no --omit`, 'm'));
    }
    expect(lackingInstall.output).not.toMatch(/typecheck:snapshot/);
  });

  it('run_autograder on that install: "Autograder error", and the instructors\' detail is the error that stopped the check', async (ctx) => {
    if (notCached) ctx.skip();
    const root = autograderRoot(path.join(temp, 'runs'), 'lacking', { 'index.ts': reference() }, lacking);
    const { results } = await runAutograder(root, { env: PATH_ENV });
    expect(results.tests.map((t) => [t.name, t.visibility])).toEqual([
      [AUTOGRADER_ERROR_TEST, 'visible'], [`${AUTOGRADER_ERROR_TEST}: details for instructors`, 'hidden'],
    ]);
    expect(results.score).toBe(0);
    // The first words of the error each package's check met (scripts/check-packages.ts), found again in the detail.
    for (const { name, module } of NATIVE_PACKAGES) {
      const met = new RegExp(`^check-packages: ${literal(name)} cannot load \\(${literal(module)}: (.{1,60})`, 'm').exec(lackingInstall.output)?.[1];
      expect(met, name).toBeDefined();
      expect(results.tests[1].output).toContain(met);
    }
    expect(results.tests[1].output).toMatch(/^autograde: the grader's modules could not load: /);
  });
});

describe('run_autograder from that install, with no native file but the declared packages\' (lib/gradescope/nativePackages.ts)', () => {
  const fullMarks = (outcome: Outcome | undefined): Results => {
    expect(outcome?.failure ?? '').toBe('');
    const { results, log } = outcome!.value!;
    expect(results.score, `${log}\nremoved native files: ${removed.join(', ')}`).toBe(FULL_MARKS);
    expect(results.tests.filter((t) => t.status !== 'passed')).toEqual([]);
    return results;
  };

  it('as root (or whoever runs the self-tests): full marks, hidden cases included and shown after publication', (ctx) => {
    if (notCached) ctx.skip();
    const results = fullMarks(graded.root);
    expect(FULL_MARKS).toBe(14.5);
    expect(results.tests.map((t) => t.name)).toEqual(GRADED_CASES.map((c) => c.name));
    const hidden = new Set(GRADED_CASES.filter((c) => c.hidden).map((c) => c.name));
    expect(results.tests.map((t) => t.visibility)).toEqual(results.tests.map((t) => (hidden.has(t.name) ? 'after_published' : 'visible')));
  });

  it.runIf(IS_ROOT)('as root without CAP_SYS_ADMIN (Gradescope\'s container): full marks, each child a uid and a root folder of its own, and the log says so', (ctx) => {
    if (notCached) ctx.skip();
    const results = fullMarks(graded.withoutSysAdmin);
    expect(results.extra_data?.containment?.setting).toBe('own-uids');
    expect(graded.withoutSysAdmin!.value!.log).toMatch(/autograde: Containment: root without namespaces/);
  });

  it.runIf(IS_ROOT)('as an unprivileged user: full marks, contained as that user can be', (ctx) => {
    if (notCached) ctx.skip();
    const results = fullMarks(graded.user);
    expect(['user-namespaces', 'same-user']).toContain(results.extra_data?.containment?.setting);
  });
});
