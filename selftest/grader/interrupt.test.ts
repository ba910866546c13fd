/**
 * Ctrl-C (SIGINT) or SIGTERM during a batch: it stops, kills its children, writes grades.csv,
 * batch.json (marked interrupted, which no merge takes) and the report for what finished, says
 * `interrupted: N of M graded; run the same command to resume` and exits 130 or 143; the same
 * command then grades only what was left. A submission that hangs keeps a job busy, so the signal
 * always finds work in flight. SIGINT end to end; SIGTERM's part of the path (its handler, its
 * exit code) in this process.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { onStopSignal, SIGNAL_EXIT_CODE } from '../../lib/batch/interrupt';
import { MergeError, mergeShards } from '../../lib/batch/merge';
import { RECORD_FILE, type BatchRecord } from '../../lib/batch/record';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { csvRecords } from '../../lib/report/exports';
import { CauseBook } from '../../lib/report/causes';
import { processTree } from '../../lib/sandbox/childClock';
import { FUNCTIONS } from '../../adapters/functions';
import { ASSIGNMENT } from '../../tests/assignment';
import { GRADED_CASES } from '../../tests/cases';
import { MISTAKES } from '../../tests/diagnosis/catalogue';
import { materialize, tempDir } from './materialize';

const BOOK = { functions: FUNCTIONS, causes: new CauseBook(MISTAKES), title: ASSIGNMENT.page.title };
const root = tempDir('interrupt');
const submissions = path.join(root, 'submissions');
const GOOD = ['b_good', 'c_good', 'd_good', 'e_good'];
const NAMES = ['a_hangs', ...GOOD];

/** A process's start time (field 22 of /proc/<pid>/stat), while it runs: a pid with the same start is the same process. */
function started(pid: number): string | undefined {
  try {
    const [state, ...fields] = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // A zombie has ended: only its exit status waits for whoever adopts it to read.
    return state === 'Z' || state === 'X' ? undefined : fields[18];
  } catch {
    return undefined;
  }
}

/** The processes of `tree` still running, once every one has ended or a minute has passed (a killed process takes a moment to go). */
async function survivors(tree: Run['tree']): Promise<Run['tree']> {
  const alive = () => tree.filter(({ pid, start }) => start !== undefined && started(pid) === start);
  for (let waited = 0; alive().length > 0 && waited < 60_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  return alive();
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The grader's processes when the signal was sent: its children, the checker, the contained children. */
  tree: { pid: number; start?: string }[];
}

/** The batch command; with `signal`, sent once a first submission is graded (so both finished and unfinished work exist). */
function batch(out: string, signal?: NodeJS.Signals): Promise<Run> {
  const child = spawn(process.execPath, [RUN_TS, 'scripts/grade.ts', '--submissions', submissions, '--out', out, '--jobs', '2', '--timeout', '30', '--budget', '8'], { cwd: PROJECT_ROOT });
  let [stdout, stderr] = ['', ''];
  let tree: Run['tree'] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (signal && tree.length === 0 && /^[b-e]_good: 12\/12\b/m.test(stdout)) {
      tree = processTree(child.pid!).filter((pid) => pid !== child.pid).map((pid) => ({ pid, start: started(pid) }));
      child.kill(signal);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, tree })));
}

beforeAll(() => {
  materialize(path.join(__dirname, '..', 'attacks', 'hang_in_softmax.ts'), submissions, 'a_hangs');
  for (const name of GOOD) materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, name);
});

describe('an interrupted batch', () => {
  it('SIGINT: the gradebook of what finished, one line, exit 130, no child left', async () => {
    const [signal, code] = ['SIGINT', 130] as const;
    const out = path.join(root, `out-${signal}`);
    const run = await batch(out, signal);
    const log = `${run.stdout}\n${run.stderr}`;
    expect(run.code, log).toBe(code);
    const said = /^interrupted: (\d+) of (\d+) graded; run the same command to resume$/m.exec(run.stderr);
    expect(said, log).not.toBeNull();
    const [graded, of] = [Number(said![1]), Number(said![2])];
    expect(of).toBe(NAMES.length);
    expect(graded).toBeGreaterThanOrEqual(1);
    expect(graded).toBeLessThan(NAMES.length);
    // Every submission has its row: the graded ones their points, the others why they have none.
    const rows = csvRecords(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8'));
    expect(rows.map((r) => r.name)).toEqual(NAMES);
    expect(rows.filter((r) => r.total === '12')).toHaveLength(graded);
    for (const row of rows.filter((r) => r.total !== '12')) expect(row.status, row.name).toMatch(/^not graded: the batch was interrupted .*run the same command to resume$/);
    expect(fs.readFileSync(path.join(out, 'report.html'), 'utf8')).toContain(`${NAMES.length} submissions`);
    const record = JSON.parse(fs.readFileSync(path.join(out, RECORD_FILE), 'utf8')) as BatchRecord;
    expect(record.interrupted).toEqual({ signal, graded, of });
    // Nothing the grader started outlives it: the hung child, the others, the type checker.
    expect(run.tree.length).toBeGreaterThan(0);
    expect(await survivors(run.tree)).toEqual([]);
  });

  // SIGTERM (a CI job's cancel) takes SIGINT's path through the command (scripts/grade.ts, gradeBatch):
  // only onStopSignal's handler and the exit code differ by signal.
  it('SIGTERM stops the batch as SIGINT does, naming itself, and exits 143 (128 + its number)', () => {
    const signals = ['SIGINT', 'SIGTERM'] as const;
    const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
    const stopped: string[] = [];
    const remove = onStopSignal((s) => stopped.push(s));
    const added = (s: (typeof signals)[number]) => process.listeners(s).filter((l) => !before.get(s)!.has(l));
    const exit = vi.spyOn(process, 'exit').mockImplementation(((code: number) => {
      throw new Error(`exit ${code}`);
    }) as never);
    try {
      for (const s of signals) expect(added(s), s).toHaveLength(1);
      const [onTerm] = added('SIGTERM');
      (onTerm as () => void)();
      expect(stopped).toEqual(['SIGTERM']);
      // A second signal while the gradebook is written exits at once, with its own code.
      expect(onTerm).toThrow('exit 143');
    } finally {
      exit.mockRestore();
      remove();
    }
    expect(signals.map(added)).toEqual([[], []]);
    expect(SIGNAL_EXIT_CODE).toEqual({ SIGINT: 128 + os.constants.signals.SIGINT, SIGTERM: 128 + os.constants.signals.SIGTERM });
  });

  it('the same command then grades what was left and keeps the rest; no merge takes an interrupted folder', async () => {
    const out = path.join(root, 'out-SIGINT');
    const before = csvRecords(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8')).filter((r) => r.total === '12').length;
    // The merge's own refusal, in process: shards.test.ts shows the command prints one as `merge: refused: …`, exit 1.
    const merge = () => mergeShards([out], path.join(root, 'merged'), GRADED_CASES, BOOK);
    expect(merge).toThrow(MergeError);
    expect(merge).toThrow(/out-SIGINT is a shard whose grading was interrupted \(\d of 5 graded\): run its command again to finish it$/);
    const resumed = await batch(out);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`^kept ${before} earlier result\\(s\\)`, 'm'));
    const rows = csvRecords(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8'));
    expect(rows.filter((r) => GOOD.includes(r.name)).map((r) => r.total)).toEqual(['12', '12', '12', '12']);
    expect(rows.find((r) => r.name === 'a_hangs')?.status).toMatch(/^graded \(/);
    expect((JSON.parse(fs.readFileSync(path.join(out, RECORD_FILE), 'utf8')) as BatchRecord).interrupted).toBeUndefined();
  });
});
