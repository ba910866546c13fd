/**
 * Repositories shaped to fill the fetch's disk or outlast its job (lib/batch/fetch.ts). A checkout
 * once wrote whatever a commit expanded to before any bound: a 196 KB push of nested trees became
 * 100,001 files (825 MB), a 596 KB push a 100 MB file, and in classroom/grade-course.yml the fetch
 * is one job before any grading, so one such repository left no one graded. Here each is fetched
 * beside an honest one with the real caps, and each of the fetch's bounds is crossed:
 * - the tree's caps (files and folders, depth, one file's size, all of them), generated from the
 *   caps themselves, crossed by one from trees git stores in a few objects: each is that
 *   repository's row, nothing of it is written, the honest one is fetched;
 * - the download (a pack past the scratch cap), the disk (less free than one repository may take),
 *   the time (a server that never answers: every git process of the repository killed);
 * - what a checkout would have grown or fetched (Git LFS's smudge configured on the machine, a
 *   commit's attributes eol=crlf, ident, working-tree-encoding): the files are the committed blobs.
 * The fetch runs in the instructor's process, where no containment setting applies: these run
 * once, in whatever setting the self-test has.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneRepositories, FETCH_LIMITS, type FetchLimits } from '../../lib/batch/fetch';
import { FETCHED_FILE, type FetchedRecord } from '../../lib/batch/fetched';
import { PROJECT_ROOT } from '../../lib/paths';
import { tempDir } from '../grader/materialize';
import { chain, gitRepository, treeFiles } from './trees';

const root = tempDir('fetch-budget');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const github = path.join(root, 'github');
const REFERENCE = fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'));
const git = (cwd: string, args: string[], input?: string | Buffer) => execFileSync('git', args, { cwd, input, maxBuffer: 1 << 28 }).toString().trim();

/** A bare repository course/<name>.git whose commit is `tree` (an object id), student/index.ts beside it. */
function fromTree(name: string, build: (bare: string) => string): void {
  const bare = path.join(github, 'course', `${name}.git`);
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', bare]);
  const blob = git(bare, ['hash-object', '-w', '--stdin'], REFERENCE);
  const student = git(bare, ['mktree'], `100644 blob ${blob}\tindex.ts\n`);
  const top = git(bare, ['mktree'], `040000 tree ${student}\tstudent\n040000 tree ${build(bare)}\tthe-rest\n`);
  const commit = execFileSync('git', ['commit-tree', top, '-m', name], {
    cwd: bare, env: { ...process.env, GIT_AUTHOR_NAME: 's', GIT_AUTHOR_EMAIL: 's@x', GIT_COMMITTER_NAME: 's', GIT_COMMITTER_EMAIL: 's@x' },
  }).toString().trim();
  git(bare, ['update-ref', 'refs/heads/main', commit]);
}

/** A tree of `fanout` entries per level, `levels` deep, every entry the same subtree: fanout^levels files from levels + 1 objects. */
function nested(bare: string, fanout: number, levels: number, blobSize = 1): string {
  let id = git(bare, ['hash-object', '-w', '--stdin'], Buffer.alloc(blobSize, 'x'));
  let kind = '100644 blob';
  for (let level = 0; level < levels; level++) {
    id = git(bare, ['mktree'], Array.from({ length: fanout }, (_, i) => `${kind} ${id}\te${i}\n`).join(''));
    kind = '040000 tree';
  }
  return id;
}

/** The tree's caps, each crossed by one, by trees generated from the cap (the real caps, FETCH_LIMITS). */
const { entries, depth, fileBytes, totalBytes } = FETCH_LIMITS;
/** student/, its index.ts and the-rest/ come before what each tree below adds. */
const AROUND = 3;
const blob = (bare: string, bytes: Buffer | string) => git(bare, ['hash-object', '-w', '--stdin'], bytes);
const tree = (bare: string, lines: string[]) => git(bare, ['mktree'], lines.map((line) => `${line}\n`).join(''));
/** Git lists a folder's names sorted as bytes: the last of e0…e(n-1). */
const lastOf = (n: number) => Array.from({ length: n }, (_, i) => `e${i}`).sort().at(-1);
const CROSSINGS: Record<string, { build: (bare: string) => string; row: RegExp }> = {
  // 10^5 files from six objects: the nested-trees push that became 100,001 files.
  nested_trees: { build: (bare) => nested(bare, 10, 5), row: new RegExp(`^"the-rest/e0/e\\d/e\\d/e\\d(/e\\d)?" takes the repository past ${entries} files and folders: commit only the assignment`) },
  entries_one_past_at_the_last_entry: { build: (bare) => nested(bare, entries - AROUND + 1, 1), row: new RegExp(`^"the-rest/${lastOf(entries - AROUND + 1)}" takes the repository past ${entries} files and folders`) },
  entries_a_folder_right_after_the_cap: {
    build: (bare) => {
      const x = blob(bare, 'x');
      return tree(bare, [...Array.from({ length: entries - AROUND }, (_, i) => `100644 blob ${x}\te${i}`), `040000 tree ${nested(bare, 1, 1)}\tzz`]);
    },
    row: new RegExp(`^"the-rest/zz" takes the repository past ${entries} files and folders`),
  },
  one_folder_too_deep: { build: (bare) => chainTree(bare, depth), row: new RegExp(`^"the-rest(/d\\d+){${depth}}" is more than ${depth} folders deep: flatten its folders`) },
  // 100 MB of zeros: a push of a few hundred KiB.
  file_of_100_mb: { build: (bare) => nested(bare, 1, 1, 100_000_000), row: /^"the-rest\/e0" is 100,000,000 bytes; a file may be at most 16 MiB: remove it from the repository/ },
  file_one_byte_over: { build: (bare) => nested(bare, 1, 1, fileBytes + 1), row: new RegExp(`^"the-rest/e0" is ${(fileBytes + 1).toLocaleString('en-US')} bytes; a file may be at most 16 MiB`) },
  total_one_byte_over: {
    // student/index.ts, then 3 files at the file cap and the rest of the total in y: z is the byte over.
    build: (bare) => tree(bare, [
      `040000 tree ${nested(bare, 3, 1, fileBytes)}\ta`,
      `100644 blob ${blob(bare, Buffer.alloc(totalBytes - 3 * fileBytes - REFERENCE.length, 'y'))}\ty`,
      `100644 blob ${blob(bare, 'z')}\tz`,
    ]),
    row: /^"the-rest\/z" takes the repository past 64 MiB of files: remove large files from the repository/,
  },
};

/**
 * Exactly on every cap, taken whole: the-rest/chain/d1…d(depth-2) reaches the depth cap, three files
 * at the file cap and rest.bin make the total, many/ the entries.
 */
function onEveryCap(bare: string): string {
  const others = AROUND + (1 + 3) + (1 + (depth - 2) + 1) + 1 + 1;
  const many = entries - others;
  const rest = totalBytes - 3 * fileBytes - REFERENCE.length - 1 - many;
  return tree(bare, [
    `040000 tree ${nested(bare, 3, 1, fileBytes)}\tbig`,
    `040000 tree ${chainTree(bare, depth - 2)}\tchain`,
    `040000 tree ${nested(bare, many, 1)}\tmany`,
    `100644 blob ${blob(bare, Buffer.alloc(rest, 'r'))}\trest.bin`,
  ]);
}

/** `levels` folders d1…d(levels) nested, a file in the deepest. */
function chainTree(bare: string, levels: number): string {
  let id = git(bare, ['mktree'], `100644 blob ${git(bare, ['hash-object', '-w', '--stdin'], 'x')}\tleaf.ts\n`);
  for (let i = levels; i >= 1; i--) id = git(bare, ['mktree'], `040000 tree ${id}\td${i}\n`);
  return id;
}

function record(out: string): FetchedRecord {
  return JSON.parse(fs.readFileSync(path.join(out, FETCHED_FILE), 'utf8')) as FetchedRecord;
}

const fetch = (names: string[], out: string, limits: FetchLimits = FETCH_LIMITS, baseUrl = `${github}${path.sep}`) =>
  cloneRepositories(names.map((name) => ({ slug: `course/${name}`, name })), path.join(root, out), { baseUrl, jobs: 2, limits });

beforeAll(() => {
  gitRepository(path.join(github, 'course', 'honest.git'), [{ path: 'student/index.ts', bytes: REFERENCE }, { path: 'README.md', bytes: Buffer.from('# mine\n') }]);
  for (const [name, { build }] of Object.entries(CROSSINGS)) fromTree(name, build);
  fromTree('on_every_cap', onEveryCap);
});

describe('a repository past a bound of the fetch is its own row, and nothing of it is written', () => {
  it('the tree\'s caps, each crossed by one (the real caps): refused from the tree, the honest one fetched', async () => {
    const out = path.join(root, 'caps');
    const outcome = await fetch(['honest', 'on_every_cap', ...Object.keys(CROSSINGS)], 'caps');
    const rows = record(out).repositories;
    for (const [name, { row }] of Object.entries(CROSSINGS)) expect(rows[name].error, name).toMatch(row);
    expect(rows.on_every_cap.error).toBeUndefined();
    expect(outcome.fetched).toBe(2);
    // Nothing of a refused repository is left, nor of any scratch space.
    expect(fs.readdirSync(out).sort()).toEqual([FETCHED_FILE, 'honest', 'on_every_cap']);
    expect(fs.readFileSync(path.join(out, 'honest', 'student', 'index.ts')).equals(REFERENCE)).toBe(true);
    const onCap = fs.readdirSync(path.join(out, 'on_every_cap'), { recursive: true, withFileTypes: true });
    expect(onCap.length).toBe(entries);
  });

  it('a download past the scratch cap, and a disk with less free than one repository may take', async () => {
    gitRepository(path.join(github, 'course', 'random.git'), [{ path: 'student/index.ts', bytes: REFERENCE }, { path: 'noise.bin', bytes: crypto.randomBytes(3 * 1024 ** 2) }]);
    const small = { ...FETCH_LIMITS, scratchBytes: 1024 ** 2 };
    await fetch(['honest', 'random'], 'scratch', small);
    const rows = record(path.join(root, 'scratch')).repositories;
    expect(rows.random.error).toBe('its download passed 1 MiB, the most one repository may take: remove large files from the repository and its history');
    expect(rows.honest.error).toBeUndefined();
    const disk = await fetch(['honest'], 'disk', { ...FETCH_LIMITS, scratchBytes: 2 ** 60 });
    expect(disk.failed[0]).toMatch(/^course\/honest \(the fetch's disk has [\d.]+ (bytes|KiB|MiB) free, less than one repository may take \([\d.]+ MiB\): free space, or fetch on a larger disk\)$/);
  });

  it('a server that never answers: the repository\'s time runs out, every git process of it is killed', async () => {
    const held: net.Socket[] = [];
    // Each request read and never answered: a socket that reads sees git's end when git is killed.
    const server = net.createServer((socket) => held.push(socket.resume()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as net.AddressInfo;
      const outcome = await fetch(['stalled'], 'stalled', { ...FETCH_LIMITS, seconds: 1 }, `http://127.0.0.1:${port}/`);
      expect(outcome.failed).toEqual(['course/stalled (fetching it took more than 1 s, the most one repository may take: fetch it again; if it is large, remove what is not code from it)']);
      expect(held.length).toBeGreaterThan(0);
      // Killed, git's connections close: wait for each (a test timeout, not a timing, catches a git left running).
      await Promise.all(held.map((socket) => (socket.closed ? undefined : new Promise((resolve) => socket.once('close', resolve)))));
    } finally {
      server.close();
    }
  });
});

describe('the files fetched are the blobs committed: no checkout filter runs', () => {
  it('Git LFS configured on the machine does not smudge a pointer; eol, ident and working-tree-encoding grow nothing', async () => {
    const pointer = Buffer.from('version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 1000000000\n');
    const idents = Buffer.from('// $Id$\n'.repeat(1000));
    const text = Buffer.from('export const a = 1;\n'.repeat(1000));
    gitRepository(path.join(github, 'course', 'filters.git'), [
      { path: '.gitattributes', bytes: Buffer.from('*.bin filter=lfs diff=lfs merge=lfs -text\nid.ts ident\ncrlf.ts text eol=crlf\nwide.ts working-tree-encoding=UTF-32\n') },
      { path: 'student/index.ts', bytes: REFERENCE },
      { path: 'weights.bin', bytes: pointer },
      { path: 'id.ts', bytes: idents },
      { path: 'crlf.ts', bytes: text },
      { path: 'wide.ts', bytes: text },
    ]);
    // As `git lfs install` leaves a machine: a smudge filter that is required; this one says when it runs.
    const ran = path.join(root, 'lfs-ran');
    const filter = path.join(root, 'lfs-filter.sh');
    fs.writeFileSync(filter, `#!/bin/sh\necho "$@" >> ${JSON.stringify(ran)}\nhead -c 100000000 /dev/zero\n`, { mode: 0o755 });
    const globalConfig = path.join(root, 'gitconfig');
    fs.writeFileSync(globalConfig, `[filter "lfs"]\n\tsmudge = ${filter} smudge %f\n\tprocess = ${filter} process\n\trequired = true\n`);
    const before = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = globalConfig;
    try {
      const outcome = await fetch(['filters'], 'filters');
      expect(outcome.failed).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = before;
    }
    const fetched = (file: string) => fs.readFileSync(path.join(root, 'filters', 'filters', file));
    expect(fetched('weights.bin').equals(pointer)).toBe(true);
    expect(fetched('id.ts').equals(idents)).toBe(true);
    expect(fetched('crlf.ts').equals(text)).toBe(true);
    expect(fetched('wide.ts').equals(text)).toBe(true);
    expect(fs.existsSync(ran)).toBe(false);
  });
});

describe('the generated chains the unit tests use hold in a real fetch too', () => {
  it('a chain exactly as deep as the cap is fetched whole; one deeper is refused', async () => {
    const limits = { ...FETCH_LIMITS, depth: 3 };
    gitRepository(path.join(github, 'course', 'chain3.git'), treeFiles(chain(3)));
    gitRepository(path.join(github, 'course', 'chain4.git'), treeFiles(chain(4)));
    const outcome = await fetch(['chain3', 'chain4'], 'chains', limits);
    expect(outcome.failed).toEqual(['course/chain4 ("d1/d2/d3/d4" is more than 3 folders deep: flatten its folders)']);
    expect(fs.readFileSync(path.join(root, 'chains', 'chain3', 'd1', 'd2', 'd3', 'leaf.ts'), 'utf8')).toBe('x');
  });
});
