/**
 * The student handout (`npm run release -- --out DIR`): an explicit allow-list of what a student
 * receives, so a new instructor file stays behind until someone decides to ship it. Everything is
 * built in memory first: a missing or malformed source refuses before a single file is written.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { AssignmentParts } from './grading/assignment';
import { mistakeFile, type Manifest } from './model/manifest';
import { PROJECT_ROOT } from './paths';
import { withCaseTables, type Declared } from './readmeTables';
import { hasRegions, keepRegions, RegionError } from './text/regions';

/** The release cannot be built or written; the message says what to do. */
export class ReleaseError extends Error {
  override name = 'ReleaseError';
}

/** A file or folder (ending in '/') shipped as it is in the working tree; each must exist. */
interface Copied {
  path: string;
  skip?: RegExp;
  /** Shipped when the folder has it; a README that links it without it is refused (handoutLinks). */
  optional?: boolean;
}

/** The assignment's own, from its folder (Assignment.root): how its functions are called, its suite and case table. */
const ASSIGNMENT_COPIED: readonly Copied[] = [
  { path: 'adapters/' },
  { path: 'tests/' },
  // The student's guide the For students section links to: what does not fit in a README.
  { path: 'docs/students.md', optional: true },
];

/** The harness's, from the project's root. */
const HARNESS_COPIED: readonly Copied[] = [
  // The harness's unit tests and their sample results, this tool, the benchmarks, the Gradescope bundler,
  // page (it runs the reference) and a course's fetch and merge (scripts/fetch-submissions.ts, merge.ts) are instructor-only.
  { path: 'lib/', skip: /\.test\.ts$|^lib\/release\.ts$|^lib\/readmeTables\.ts$|^lib\/report\/(sampleResults|githubBatch)\.ts$|^lib\/batch\/(fetch|fetchGit|fetchWrite|fetchedEntries|merge)\.ts$|^lib\/(bench|gradescope|similarity)\// },
  { path: 'scripts/grade.ts' },
  { path: 'scripts/typecheck.ts' },
  // What the handout's scripts run under (package.json): without it no script of the handout starts.
  { path: 'scripts/runTs.js' },
  { path: 'vitest.config.mts' },
  // The page a student gets from `npm run grade -- --html FILE`, shown in the handout's README.
  { path: 'docs/report-submission.png' },
  { path: '.gitignore' },
];

/** Taken from the last commit, not the working tree: an instructor may be trying a solution there. */
const STUDENT_DIR = 'student/';
const STUDENT_ENTRY = 'student/index.ts';
const SHIPPED_SCRIPTS = ['test', 'grade', 'typecheck'] as const;
const STUDENT_SECTION = '## For students';

export interface Handout {
  /** Project-relative path (forward slashes) → contents. */
  files: Map<string, Buffer>;
  visibleFixtures: number;
  hiddenFixtures: number;
}

function git(root: string, args: string[]): Buffer {
  try {
    return execFileSync('git', ['-C', root, ...args], { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  } catch (err) {
    const detail = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim().split('\n')[0];
    throw new ReleaseError(`git ${args[0]} failed (${detail}); run the release from a git clone of the project`);
  }
}

const nulList = (out: Buffer) => out.toString('utf8').split('\0').filter(Boolean);

const missing = (file: string) =>
  new ReleaseError(`${file} is on the release allow-list but missing: restore it, or edit the list in lib/release.ts`);

function readSource(root: string, file: string): Buffer {
  try {
    return fs.readFileSync(path.join(root, file));
  } catch {
    throw missing(file);
  }
}

/** Working-tree files git would see (tracked or new, not ignored): editor and build junk stays out. */
function workingTreeFiles(root: string): string[] {
  const listed = nulList(git(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']));
  return listed.filter((file) => fs.existsSync(path.join(root, file)));
}

function copiedFiles(root: string, rules: readonly Copied[], files: Map<string, Buffer>): void {
  const tree = workingTreeFiles(root);
  for (const rule of rules) {
    const matches = rule.path.endsWith('/')
      ? tree.filter((file) => file.startsWith(rule.path) && !rule.skip?.test(file))
      : tree.filter((file) => file === rule.path);
    if (matches.length === 0 && !rule.optional) throw missing(rule.path);
    for (const file of matches) files.set(file, readSource(root, file));
  }
}

/**
 * The GitHub Classroom workflow is kept here as a template (in this repository it would grade the
 * stubs on every push) and becomes the handout's own workflow.
 */
const WORKFLOW_TEMPLATE = 'classroom/github-workflow.yml';
const WORKFLOW_TARGET = '.github/workflows/classroom.yml';

function classroomWorkflow(root: string, files: Map<string, Buffer>): void {
  files.set(WORKFLOW_TARGET, readSource(root, WORKFLOW_TEMPLATE));
}

function committedStudent(root: string, files: Map<string, Buffer>): void {
  const committed = nulList(git(root, ['ls-tree', '-r', '-z', '--name-only', 'HEAD', '--', STUDENT_DIR]));
  if (!committed.includes(STUDENT_ENTRY)) {
    throw new ReleaseError(`${STUDENT_ENTRY} is not in the last commit: commit the stubs before releasing`);
  }
  // Paths and `HEAD:./…` are relative to `root`, which may be a folder inside the repository.
  for (const file of committed) files.set(file, git(root, ['show', `HEAD:./${file}`]));
}

/**
 * The manifest of the visible fixtures the handed cases use (a part that is off ships none), and
 * exactly the files those entries list (inputs, expected, mistakes).
 */
function visibleFixtures(root: string, handed: Handed, files: Map<string, Buffer>): { visible: number; hidden: number } {
  const manifest = JSON.parse(readSource(root, 'fixtures/manifest.json').toString('utf8')) as Manifest;
  const entries = Object.entries(manifest.fixtures);
  const used = new Set(handed.cases.map((c) => c.fixture));
  const visible = entries.filter(([key, entry]) => !entry.hidden && used.has(key));
  for (const [key, entry] of visible) {
    if (key.startsWith('hidden/')) {
      throw new ReleaseError(
        `fixtures/manifest.json: "${key}" is under hidden/ but not marked hidden; regenerate with \`npm run fixtures\``,
      );
    }
    // The mistakes' outputs too: the handout's own tests name a failing case's mistake from them.
    const names = [...Object.keys(entry.files), ...Object.keys(entry.mistakes).map(mistakeFile)];
    for (const file of names.map((name) => `fixtures/${key}/${name}`)) files.set(file, readSource(root, file));
  }
  const shipped: Manifest = { ...manifest, fixtures: Object.fromEntries(visible) };
  files.set('fixtures/manifest.json', Buffer.from(`${JSON.stringify(shipped, null, 2)}\n`));
  return { visible: visible.length, hidden: entries.filter(([key, entry]) => entry.hidden && used.has(key)).length };
}

/**
 * What the handout's scripts use (npm test, npm run grade, npm run typecheck): every other
 * dependency of the project (the browser driver, the schema checker, YAML)
 * is an instructor's and stays out of the handout's package.json and lock.
 */
const SHIPPED_DEPENDENCIES = ['npyjs', 'seedrandom'];
// rolldown: its parser checks a submission's imports in npm test as in the grader (lib/sandbox/imports.ts).
const SHIPPED_DEV_DEPENDENCIES = ['@types/node', '@types/seedrandom', 'rolldown', 'typescript', 'vitest'];

interface PackageJson {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const only = (deps: Record<string, string> | undefined, names: readonly string[], file: string) =>
  Object.fromEntries(names.map((name) => {
    const range = deps?.[name];
    if (range === undefined) throw new ReleaseError(`${file} does not list ${name}, which the handout needs: add it, or edit the list in lib/release.ts`);
    return [name, range];
  }));

function packageJson(root: string): Buffer {
  const pkg = JSON.parse(readSource(root, 'package.json').toString('utf8')) as PackageJson;
  const scripts: Record<string, string> = {};
  for (const name of SHIPPED_SCRIPTS) {
    const command = pkg.scripts?.[name];
    if (command === undefined) throw new ReleaseError(`package.json has no "${name}" script, which the handout needs`);
    scripts[name] = command;
  }
  const dependencies = only(pkg.dependencies, SHIPPED_DEPENDENCIES, 'package.json');
  const devDependencies = only(pkg.devDependencies, SHIPPED_DEV_DEPENDENCIES, 'package.json');
  return Buffer.from(`${JSON.stringify({ ...pkg, scripts, dependencies, devDependencies }, null, 2)}\n`);
}

interface LockEntry {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/**
 * package-lock.json with only what the handout's dependencies reach, resolved as Node resolves a
 * package's dependencies (its own node_modules first, then each folder above), so that `npm ci`
 * installs exactly the project's versions of those and nothing else.
 */
function packageLock(root: string): Buffer {
  const lock = JSON.parse(readSource(root, 'package-lock.json').toString('utf8')) as { lockfileVersion: number; packages: Record<string, LockEntry> };
  if (lock.lockfileVersion < 2 || !lock.packages?.['']) throw new ReleaseError('package-lock.json: lockfile v2 or v3 expected (npm 7 or later): run `npm install` with a current npm');
  const rootEntry = lock.packages[''];
  const shippedRoot: LockEntry = {
    ...rootEntry,
    dependencies: only(rootEntry.dependencies, SHIPPED_DEPENDENCIES, 'package-lock.json'),
    devDependencies: only(rootEntry.devDependencies, SHIPPED_DEV_DEPENDENCIES, 'package-lock.json'),
  };
  const resolve = (from: string, name: string): string | undefined => {
    for (let dir = from; ; dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : '') {
      const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
      if (lock.packages[candidate]) return candidate;
      if (!dir) return undefined;
    }
  };
  const kept = new Set<string>(['']);
  const queue: [string, LockEntry][] = [['', shippedRoot]];
  while (queue.length) {
    const [at, entry] = queue.shift()!;
    // An optional peer (vite's yaml) is installed only when something else asks for it.
    const peers = Object.keys(entry.peerDependencies ?? {}).filter((name) => !entry.peerDependenciesMeta?.[name]?.optional);
    const names = [...[entry.dependencies, entry.devDependencies, entry.optionalDependencies].flatMap((d) => Object.keys(d ?? {})), ...peers];
    for (const name of names) {
      const found = resolve(at, name);
      if (found && !kept.has(found)) {
        kept.add(found);
        queue.push([found, lock.packages[found]]);
      }
    }
  }
  const packages = Object.fromEntries(Object.entries(lock.packages).filter(([key]) => kept.has(key)).map(([key, entry]) => [key, key === '' ? shippedRoot : entry]));
  return Buffer.from(`${JSON.stringify({ ...lock, packages }, null, 2)}\n`);
}

/** tsconfig.json is JSONC: only the include line is rewritten, so its comments survive. */
function tsconfig(root: string, shipped: ReadonlySet<string>): Buffer {
  const text = readSource(root, 'tsconfig.json').toString('utf8');
  const line = /^(\s*"include":\s*)(\[[^\]\n]*\])/m;
  const match = line.exec(text);
  if (!match) throw new ReleaseError('tsconfig.json: no one-line "include": [...] to rewrite; keep the include list on one line');
  const exists = (entry: string) => [...shipped].some((file) => file === entry || file.startsWith(`${entry}/`));
  const kept = (JSON.parse(match[2]) as string[]).filter(exists);
  return Buffer.from(text.replace(line, `$1[${kept.map((entry) => JSON.stringify(entry)).join(', ')}]`));
}

/**
 * The project README's title, the student commands, then its "For students" section, with its
 * tables of points and tests made afresh from the case table (lib/readmeTables.ts): a point value
 * changed in the case table cannot leave the handout showing the old one.
 */
function readme(root: string, handed: Handed): Buffer {
  const text = readSource(root, 'README.md').toString('utf8');
  const title = /^# .*$/m.exec(text)?.[0];
  const start = text.indexOf(`\n${STUDENT_SECTION}\n`);
  if (!title || start < 0) throw new ReleaseError(`README.md: needs a "# " title and a "${STUDENT_SECTION}" section for the handout`);
  const end = text.indexOf('\n## ', start + 1);
  const section = withCaseTables(text.slice(start + 1, end < 0 ? undefined : end + 1).trimEnd(), handed);
  const commands = ['```sh', ...handed.studentCommands, '```'].join('\n');
  return Buffer.from(`${title}\n\n${commands}\n\n${section}\n`);
}

/**
 * What the handout is made of besides files: the assignment's functions and cases (the README's
 * tables), the commands its README opens with, its folder, and its parts, when it has optional ones.
 */
export interface Handed extends Declared {
  studentCommands: readonly string[];
  root: string;
  parts?: AssignmentParts;
}

/** Files whose part regions (lib/text/regions.ts) the release reads. */
const WITH_REGIONS = /\.(ts|mts|js|md)$/;

/**
 * The assignment's own files as the handout ships them: the regions of the parts that are off
 * dropped (a stub, a section of the student's guide), the others' kept, and the switch fixed to the
 * parts graded, so that nothing in a student's environment changes them.
 */
function withParts(own: Map<string, Buffer>, parts: AssignmentParts | undefined): void {
  for (const [file, contents] of own) {
    if (!WITH_REGIONS.test(file)) continue;
    const text = contents.toString('utf8');
    if (!parts) {
      if (hasRegions(text)) throw new ReleaseError(`${file} marks part regions, but the assignment declares no parts: drop the markers or declare its parts`);
      continue;
    }
    try {
      own.set(file, Buffer.from(keepRegions(text, parts.on, parts.declared.map((p) => p.id))));
    } catch (err) {
      if (err instanceof RegionError) throw new ReleaseError(`${file}, ${err.message}`);
      throw err;
    }
  }
  if (!parts) return;
  const switched = own.get(parts.switchFile);
  if (!switched) throw new ReleaseError(`${parts.switchFile} holds the parts switch but is not shipped: restore it, or name the right file in the assignment's parts`);
  own.set(parts.switchFile, Buffer.from(parts.fixSwitch(switched.toString('utf8'))));
}

/**
 * The handout of an assignment (`handed`: what its README says of it, and `root`, its folder): its
 * own folders (adapters/, tests/, the committed student/, the visible fixtures, its README) from
 * there, laid out at the handout's root beside the harness's files from `harnessRoot`.
 */
export function buildHandout(handed: Handed, harnessRoot = PROJECT_ROOT): Handout {
  const own = new Map<string, Buffer>();
  copiedFiles(handed.root, ASSIGNMENT_COPIED, own);
  committedStudent(handed.root, own);
  own.set('README.md', readme(handed.root, handed));
  withParts(own, handed.parts);
  const files = new Map<string, Buffer>();
  copiedFiles(harnessRoot, HARNESS_COPIED, files);
  for (const [file, contents] of own) files.set(file, contents);
  classroomWorkflow(harnessRoot, files);
  const { visible, hidden } = visibleFixtures(handed.root, handed, files);
  files.set('package.json', packageJson(harnessRoot));
  files.set('package-lock.json', packageLock(harnessRoot));
  files.set('tsconfig.json', tsconfig(harnessRoot, new Set(files.keys())));
  const dead = deadLinks(files);
  if (dead.length > 0) {
    throw new ReleaseError(`${dead[0]}, which the handout does not ship: add it to the allow-list in lib/release.ts or drop the link`);
  }
  return { files, visibleFixtures: visible, hiddenFixtures: hidden };
}

/**
 * Each relative link of the handout's Markdown files (`[text](target)`, `![alt](target)`) whose
 * target is not among `files`, as "FILE links TARGET": a student would follow it to nothing. A link
 * with a scheme or to an anchor of its own page is not checked; an anchor after a file is dropped.
 */
export function deadLinks(files: ReadonlyMap<string, Buffer>): string[] {
  const dead: string[] = [];
  for (const [file, contents] of files) {
    if (!file.endsWith('.md')) continue;
    for (const [, target] of contents.toString('utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      const linked = path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(target.split('#')[0]))).replace(/\/$/, '');
      const folder = `${linked}/`;
      if (!files.has(linked) && ![...files.keys()].some((shipped) => shipped.startsWith(folder))) dead.push(`${file} links ${target}`);
    }
  }
  return dead;
}

/** Writes the handout into `out`, which must be new or empty; `shown` is how the user named it. */
export function writeHandout(handout: Handout, out: string, shown = out): void {
  if (fs.existsSync(out)) {
    if (!fs.statSync(out).isDirectory()) throw new ReleaseError(`${shown} is a file: pick a new folder`);
    if (fs.readdirSync(out).length > 0) throw new ReleaseError(`${shown} is not empty: pick a new folder`);
  }
  for (const [file, contents] of handout.files) {
    const target = path.join(out, ...file.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, contents);
  }
}
