/**
 * Attacks on disk, and the grader run in a process of its own: what attacks.test.ts (this
 * machine's setting) and settings.test.ts (the others) both need.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { RUN_TS } from '../../lib/paths';
import { materialize } from '../grader/materialize';
import { LAYOUTS, type LayoutContext } from './layouts';
import type { ProbeAddresses } from './machine';

const ATTACKS_DIR = __dirname;

/** An attack as a submission folder: index.ts, base.ts, the shared kit.ts and probe.ts with the self-test's sockets. */
export function attackFolder(name: string, parent: string, probe: ProbeAddresses): string {
  const dir = materialize(path.join(ATTACKS_DIR, `${name}.ts`), parent);
  fs.copyFileSync(path.join(ATTACKS_DIR, 'kit.ts'), path.join(dir, 'kit.ts'));
  fs.writeFileSync(path.join(dir, 'probe.ts'), [
    `export const PROBE_PORT: number = ${probe.port};`,
    `export const PROBE_SOCKET: string = ${JSON.stringify(probe.socket)};`,
    `export const PROBE_ABSTRACT: string = ${JSON.stringify(probe.abstract)};`,
    `export const PROBE_TAG: string = ${JSON.stringify(probe.tag)};`,
    '',
  ].join('\n'));
  return dir;
}

/**
 * Not an attack: an honest mistake in attention (a catalogue bug) with a multi-head attention that
 * calls it, as a student's does. With --carry-forward its multi-head points must be carried.
 */
export function ownMultiHead(bugFile: string, parent: string, name: string): string {
  const dir = materialize(bugFile, parent, name);
  fs.renameSync(path.join(dir, 'index.ts'), path.join(dir, 'bug.ts'));
  fs.writeFileSync(path.join(dir, 'index.ts'), [
    "import { Tensor } from '../../lib/tensor';",
    "import { mergeHeads, splitHeads, type Weights } from './base';",
    "import { scaledDotProductAttention } from './bug';",
    '',
    "export { causalMask, scaledDotProductAttention, softmax } from './bug';",
    '',
    'export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {',
    '  const q = splitHeads(x.matmul(w.qProj.transpose(0, 1)), numHeads);',
    '  const k = splitHeads(x.matmul(w.kProj.transpose(0, 1)), numHeads);',
    '  const v = splitHeads(x.matmul(w.vProj.transpose(0, 1)), numHeads);',
    '  const heads = scaledDotProductAttention(q, k, v, mask);',
    '  return mergeHeads(new Tensor(heads.data, heads.shape)).matmul(w.oProj.transpose(0, 1));',
    '}',
    '',
  ].join('\n'));
  return dir;
}

/** Honest mistakes in attention whose multi-head points --carry-forward must carry (ownMultiHead), in two styles. */
export const CARRIED_BUGS = ['scale_missing', 'kv_swapped_loop'];

/** A layout attack's folder (attacks/layouts.ts). */
export function layoutFolder(name: string, parent: string, context: LayoutContext): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { recursive: true });
  LAYOUTS[name].build(dir, context);
  return dir;
}

/**
 * Runs attacks/runner.ts (after `prefix`: a PID namespace, another user…) in its own process
 * group; afterwards whatever is left of the group is killed. The outcome is the runner's JSON.
 */
export function runIsolated<T>(args: string[], prefix: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<{ value?: T; failure?: string }> {
  return new Promise((resolve) => {
    const [file, ...rest] = [...prefix, process.execPath, RUN_TS, path.join(ATTACKS_DIR, 'runner.ts'), ...args];
    const runner = spawn(file, rest, { cwd: process.cwd(), detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    runner.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    runner.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    runner.on('close', (code, signal) => {
      try {
        process.kill(-runner.pid!, 'SIGKILL'); // grading children the dead runner could not stop
      } catch {
        // the group is already gone
      }
      if (code === 0) resolve({ value: JSON.parse(Buffer.concat(out).toString('utf8')) as T });
      else resolve({ failure: `the grader process ${signal ? `was killed by ${signal}` : `exited with code ${code}`}: ${Buffer.concat(err).toString('utf8').slice(0, 2000)}` });
    });
  });
}
