/**
 * Where the self-test's CPU goes, file by file: each vitest file of the whole run on its own
 * (`vitest run --config vitest.selftest.config.mts FILE`), in a control group of its own, so that
 * the kernel counts every process the file started, the contained children whose launcher init
 * reaped included (cpuGroup.ts). Several files at a time: CPU time, not wall time, is the figure to
 * compare, and a loaded machine moves it far less.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths';
import { makeCpuGroup } from './cpuGroup';

export const FILES_HEADING = "## The self-tests' CPU, file by file";
const CONFIG = 'vitest.selftest.config.mts';
const VITEST = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');

export interface FileRun {
  /** Relative to the project. */
  file: string;
  cpuSeconds: number;
  wallSeconds: number;
  passed: number;
  failed: number;
  skipped: number;
}

/** The files of the whole run, as vitest lists them from its configuration. */
export function selfTestFiles(): string[] {
  const listed = spawnSync(process.execPath, [VITEST, 'list', '--config', CONFIG, '--filesOnly', '--json'], { cwd: PROJECT_ROOT, encoding: 'utf8', maxBuffer: 16 << 20 });
  if (listed.status !== 0) throw new Error(`vitest list failed:\n${listed.stderr}`);
  const files = (JSON.parse(listed.stdout) as { file: string }[]).map((f) => path.relative(PROJECT_ROOT, f.file));
  return [...new Set(files)].sort();
}

interface JsonReport {
  testResults: { assertionResults: { status: string }[] }[];
}

/** One file on its own in a control group of its own. */
async function measureFile(file: string, tag: string): Promise<FileRun> {
  const group = makeCpuGroup(`attention-bench-files-${process.pid}-${tag}`);
  if (!('joinCommand' in group)) throw new Error(`the files' CPU is counted by the kernel only: ${group.why}`);
  const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-files-')), 'report.json');
  const start = Date.now();
  try {
    const command = `${group.joinCommand} && exec "$0" "$@"`;
    const run = spawn('/bin/sh', ['-c', command, process.execPath, VITEST, 'run', '--config', CONFIG, '--reporter=json', `--outputFile.json=${report}`, file], {
      cwd: PROJECT_ROOT, stdio: 'ignore',
    });
    await new Promise((resolve) => run.on('close', resolve));
    const wallSeconds = (Date.now() - start) / 1000;
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const results = fs.existsSync(report) ? (JSON.parse(fs.readFileSync(report, 'utf8')) as JsonReport).testResults : [];
    for (const { status } of results.flatMap((r) => r.assertionResults)) {
      if (status === 'passed') counts.passed++;
      else if (status === 'skipped' || status === 'todo') counts.skipped++;
      else counts.failed++;
    }
    if (!results.length) counts.failed++;
    return { file, cpuSeconds: group.seconds(), wallSeconds, ...counts };
  } finally {
    group.remove();
    fs.rmSync(path.dirname(report), { recursive: true, force: true });
  }
}

/** Every file in `files`, `jobs` at a time; the heaviest first in what it returns. */
export async function measureFiles(files: readonly string[], jobs: number, say: (line: string) => void): Promise<FileRun[]> {
  const queue = [...files];
  const runs: FileRun[] = [];
  const worker = async (slot: number) => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const run = await measureFile(file, `${slot}-${runs.length}`);
      say(`${file}: ${run.cpuSeconds.toFixed(1)} s of CPU, ${run.wallSeconds.toFixed(0)} s, ${run.passed} passed, ${run.failed} failed`);
      runs.push(run);
    }
  };
  await Promise.all(Array.from({ length: jobs }, (_, slot) => worker(slot)));
  return runs.sort((a, b) => b.cpuSeconds - a.cpuSeconds);
}

/** The table of the heaviest files, and the whole's sum. */
export function filesTable(runs: readonly FileRun[], top: number): string[] {
  const sum = (pick: (r: FileRun) => number) => runs.reduce((s, r) => s + pick(r), 0);
  return [
    `All ${runs.length} files: ${sum((r) => r.cpuSeconds).toFixed(0)} s of CPU (each with vitest's own start), ${sum((r) => r.passed)} passed, ` +
      `${sum((r) => r.failed)} failed, ${sum((r) => r.skipped)} skipped. The heaviest ${Math.min(top, runs.length)}:`,
    '',
    '| file | CPU | wall time | tests |',
    '| --- | --- | --- | --- |',
    ...runs.slice(0, top).map((r) => `| \`${r.file}\` | ${r.cpuSeconds.toFixed(1)} s | ${r.wallSeconds.toFixed(1)} s | ${r.passed + r.failed + r.skipped} |`),
  ];
}
