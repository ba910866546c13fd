/**
 * Where the submission is inside what was handed in. Students upload in many shapes: the student
 * folder itself, a folder holding `student/`, GitHub's "Download ZIP" of their repository
 * (`attention-main/student/index.ts`), or that zip inside one more folder. The entry is the one
 * index.ts (or index.js) found at the shallowest depth, up to SEARCH_DEPTH folders down; two at that
 * depth are refused, naming both. The search never follows a link and skips what cannot hold a
 * submission (node_modules, .git, the harness's own folders).
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths';
import { showName } from '../text/sanitise';
import { IntakeError, INTAKE_LIMITS } from './folder';
import { notText } from './names';
import { walkFolder, type Walked } from './walk';
import { OverBudget, quietBudget, WalkBudget, type WalkCaps } from './walkBudget';

const SEARCH_DEPTH = 4;
/** The search's walk: entries it may list; the depth it stops at is SEARCH_DEPTH, no refusal. */
export const SEARCH_LIMITS: WalkCaps = { entries: 5000, depth: Infinity, fileBytes: Infinity, totalBytes: Infinity };
/** Beside the student folder, the grader's lib/ as a student may have edited it: compared file by file, up to these. */
const NOTES_LIMITS: WalkCaps = { entries: 200, depth: 0, fileBytes: INTAKE_LIMITS.fileBytes, totalBytes: INTAKE_LIMITS.totalBytes };
const ENTRY_NAMES = ['index.ts', 'index.js'];
/** Folders of the project that the grader supplies: an index.ts in them is not the student's. */
const HARNESS_FOLDERS = new Set(['adapters', 'lib', 'tests', 'reference', 'scripts', 'fixtures', 'selftest', 'node_modules']);
/** Files and folders of the project a full-repository upload carries beside student/. */
const HARNESS_ITEMS = ['lib', 'tests', 'adapters', 'fixtures', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'vitest.config.mts'];

export interface Located {
  /** The folder holding the entry. */
  root: string;
  /** That folder relative to the upload, posix; '' when it is the upload itself. */
  relative: string;
  entry: string;
  /** For the student: what of the upload the grader ignores although it looks like theirs to change. */
  notes: string[];
}

function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

const skipped = (name: string) => name.startsWith('.') || name === '__MACOSX' || HARNESS_FOLDERS.has(name);

/** Breadth-first: the folders at the first depth that holds an entry file, up to SEARCH_DEPTH folders down. */
function candidates(upload: string, shown: string, caps: WalkCaps): string[] {
  const fix = 'upload only your student folder';
  const budget = new WalkBudget(caps, { whole: 'the search for index.ts', file: 'file', fix: { entries: fix, depth: fix, fileBytes: fix, totalBytes: fix } },
    (message) => new IntakeError(message));
  const show = (relative: string) => (relative ? `${shown}/${showName(relative)}` : shown);
  const found: string[] = [];
  let foundAt = Infinity;
  // Breadth first: no folder is entered below the first depth that holds an entry file.
  const enter = (folder: Walked) => folder.depth < Math.min(SEARCH_DEPTH, foundAt) && !skipped(folder.name);
  for (const entry of walkFolder(upload, budget, { order: 'breadth', show, enter })) {
    const odd = notText(entry.name);
    if (odd) throw new IntakeError(`${show(entry.relative)} has a name that ${odd}: rename it (letters, digits, - and _ are safe everywhere)`);
    // A link named index.ts is a candidate too: the folder intake then refuses it by name.
    if (!ENTRY_NAMES.includes(entry.name) || entry.stat.isDirectory()) continue;
    found.push(path.posix.dirname(entry.relative).replace(/^\.$/, ''));
    foundAt = entry.depth;
  }
  return [...new Set(found)].sort();
}

/** Whether the file `theirs` is not byte for byte `ours`, read within `budget`. */
function differs(theirs: string, stat: fs.Stats, ours: string, budget: WalkBudget, where: string): boolean {
  budget.file(where, stat.size);
  if (!fs.existsSync(ours)) return true;
  // lstat said regular file, and the budget bounds its size: reading it cannot follow a link or block.
  return !fs.readFileSync(theirs).equals(fs.readFileSync(ours));
}

/** Harness files uploaded beside the student folder: the grader uses its own, and a student who edited one should know. */
function harnessNotes(projectDir: string, shownProject: string): string[] {
  const present = HARNESS_ITEMS.filter((item) => lstatOrUndefined(path.join(projectDir, item)) !== undefined);
  if (present.length === 0) return [];
  const notes = [
    `Ignored: ${present.map((p) => (p.includes('.') ? p : `${p}/`)).join(', ')} in ${shownProject}: the grader supplies its own copies and grades only your student folder.`,
  ];
  const libDir = path.join(projectDir, 'lib');
  if (!lstatOrUndefined(libDir)?.isDirectory()) return notes;
  // A note, not a verdict: a lib/ past the budget is not compared.
  const budget = quietBudget(NOTES_LIMITS);
  const changed: string[] = [];
  try {
    for (const { name, stat } of walkFolder(libDir, budget, { show: () => 'lib', enter: () => false })) {
      if (!name.endsWith('.ts') || notText(name) || !stat.isFile() || stat.nlink > 1) continue;
      if (differs(path.join(libDir, name), stat, path.join(PROJECT_ROOT, 'lib', name), budget, name)) changed.push(name);
    }
  } catch (err) {
    if (!(err instanceof OverBudget)) throw err;
    return notes;
  }
  if (changed.length > 0) {
    notes.push(`Your ${changed.map((n) => `lib/${n}`).join(', ')} differs from the grader's: only the grader's lib/ is used, so put helpers of your own in your student folder.`);
  }
  return notes;
}

/**
 * The entry that makes `dir` one submission on its face, relative to it: index.ts (or index.js) in
 * the folder itself, or in its student/ folder beside the project's own files (a student's copy of
 * the repository); undefined otherwise. The shallowest of locateSubmission's candidates, without
 * the search: a folder of submissions holds its entries a level down.
 */
export function entryOnItsFace(dir: string): string | undefined {
  const entry = (folder: string) => ENTRY_NAMES.find((name) => lstatOrUndefined(path.join(dir, folder, name))?.isDirectory() === false);
  const own = entry('');
  if (own) return own;
  const project = HARNESS_ITEMS.some((item) => lstatOrUndefined(path.join(dir, item)) !== undefined);
  const nested = project ? entry('student') : undefined;
  return nested ? `student/${nested}` : undefined;
}

/** Finds the submission in `upload`; throws IntakeError naming what is wrong. `shown` names the upload in messages. */
export function locateSubmission(upload: string, shown: string, caps = SEARCH_LIMITS): Located {
  const stat = lstatOrUndefined(upload);
  if (!stat) throw new IntakeError(`submission folder ${showName(shown)} not found: pass the folder holding index.ts`, 'missing');
  if (stat.isSymbolicLink()) throw new IntakeError(`${showName(shown)} is a symbolic link: pass the folder itself`);
  if (!stat.isDirectory()) throw new IntakeError(`${showName(shown)} is not a folder: pass the folder holding index.ts`, 'missing');
  const found = candidates(upload, showName(shown), caps);
  if (found.length === 0) {
    throw new IntakeError(`${showName(shown)} holds no index.ts (nor student/index.ts up to ${SEARCH_DEPTH} folders down): put your solution in index.ts`, 'missing');
  }
  if (found.length > 1) {
    const [a, b] = found.map((f) => showName(`${shown}/${f ? `${f}/` : ''}index.ts`));
    throw new IntakeError(`${showName(shown)} holds ${found.length} submissions, ${a} and ${b}${found.length > 2 ? ' (and more)' : ''}: upload only one`);
  }
  const relative = found[0];
  const root = path.join(upload, relative);
  const entry = ENTRY_NAMES.find((name) => lstatOrUndefined(path.join(root, name)) !== undefined)!;
  const notes = relative === '' ? [] : harnessNotes(path.dirname(root), showName(path.posix.dirname(`${shown}/${relative}`)));
  return { root, relative, entry, notes };
}
