import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { GraderError } from '../errors';
import { PROJECT_ROOT, RUN_TS } from '../paths';
import { launch, launcherPid, type ContainedProcess } from './launcher';
import { findTools } from './probeLayers';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'launcher-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const alive = (pid: number) => {
  try {
    const state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
};
const parentOf = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
const spawned = (child: ContainedProcess) => new Promise<number>((resolve) => (child.pid ? resolve(child.pid) : child.once('spawn', () => resolve(child.pid!))));
/** Everything read from a child's stdout, stderr and channel until each ends. */
const readAll = (child: ContainedProcess) =>
  Promise.all([1, 2, 3].map((fd) => new Promise<string>((resolve) => {
    let text = '';
    const pipe = child.stdio[fd as 1 | 2 | 3];
    pipe.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    pipe.on('end', () => resolve(text));
    pipe.on('close', () => resolve(text));
  })));
const exited = (child: ContainedProcess) => new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
/** Blocks this process's event loop, as a grader busy with TypeScript does. */
const block = (until: () => boolean) => {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; !until() && waited < 60_000; waited += 5) Atomics.wait(cell, 0, 0, 5);
};

it('every byte a child writes reaches the grader, when it exits before the grader took its pipes', async () => {
  // Sizes drawn around a pipe buffer's page and below a socket buffer, so each write finishes before the exit.
  for (const size of [1, 4095, 4097, 60_000]) {
    const marker = path.join(work, `exited-${size}`);
    const script = `head -c ${size} /dev/zero | tr '\\0' o; head -c ${size} /dev/zero | tr '\\0' e >&2; head -c ${size} /dev/zero | tr '\\0' c >&3; echo $$ > '${marker}'`;
    const child = launch('/bin/sh', ['-c', script], { detached: false });
    const output = readAll(child);
    const exit = exited(child);
    // The grader's loop stays blocked until the child has exited and been reaped by the launcher:
    // its pipes wait in the launcher for the grader's acknowledgements all that time.
    block(() => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() !== '' && !alive(Number(fs.readFileSync(marker, 'utf8'))));
    expect(await exit).toEqual([0, null]);
    expect(await output).toEqual(['o', 'e', 'c'].map((c) => c.repeat(size)));
  }
});

it('Ctrl-C and SIGTERM to the process group leave the launcher and its children running', async () => {
  const first = launch('/bin/sh', ['-c', 'read line <&3; echo "$line"'], { detached: false });
  const firstExit = exited(first);
  const launcher = parentOf(await spawned(first));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const) process.kill(launcher, signal);
  const second = launch('/bin/echo', ['still here'], { detached: false });
  const secondExit = exited(second);
  // The default action of each would have ended the launcher at once: this start would fail.
  const [out] = await readAll(second);
  expect(out).toBe('still here\n');
  expect(alive(launcher)).toBe(true);
  const output = readAll(first);
  first.stdio[3].end('answered\n');
  expect((await output)[0]).toBe('answered\n');
  // Both gone before the next test kills the launcher: their pipes can end before the launcher
  // reports the exit, and a child it still ran would get that test's failure, with nobody listening.
  expect(await Promise.all([firstExit, secondExit])).toEqual([[0, null], [0, null]]);
});

/** Whether a process whose /proc status is `status` has a handler for `signal` (its bit in the SigCgt mask). */
function catches(status: string, signal: NodeJS.Signals): boolean {
  const mask = /SigCgt:\s*([0-9a-f]+)/.exec(status)![1];
  return ((parseInt(mask.slice(-8), 16) >>> (os.constants.signals[signal] - 1)) & 1) === 1;
}

it("the launcher runs with none of the grader's environment and no handler for SIGUSR1: Node's inspector cannot be opened in it", async () => {
  const echo = launch('/bin/echo', ['up'], { detached: false });
  expect((await readAll(echo))[0]).toBe('up\n');
  const pid = launcherPid()!;
  // Nothing of the grader's environment (a CI token, say): only the variables Node sets for the channel to the grader.
  const environment = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean).map((entry) => entry.split('=')[0]);
  expect(environment.filter((name) => !name.startsWith('NODE_CHANNEL_'))).toEqual([]);
  // Node opens its inspector from a SIGUSR1 handler: a Node started without --disable-sigusr1 has one.
  const plain = spawnSync(process.execPath, ['-e', "process.stdout.write(require('fs').readFileSync('/proc/self/status', 'utf8'))"], { encoding: 'utf8' });
  expect(catches(plain.stdout, 'SIGUSR1')).toBe(true);
  if (process.allowedNodeEnvironmentFlags.has('--disable-sigusr1')) expect(catches(fs.readFileSync(`/proc/${pid}/status`, 'utf8'), 'SIGUSR1')).toBe(false);
});

it("a launcher that dies takes its children with it, and what they ran ends as the harness's failure", async () => {
  // As every contained command is: tied to its parent, the launcher, by a parent-death signal.
  const child = launch(findTools().setpriv!, ['--pdeathsig', 'SIGKILL', '--', 'sleep', '300'], { detached: true });
  const pid = await spawned(child);
  // Killed once setpriv has set the signal and become sleep: a child killed before then slips it (orphan.test.ts).
  const command = () => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    } catch {
      return '';
    }
  };
  for (let waited = 0; command() !== 'sleep' && waited < 60_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  const launcher = parentOf(pid);
  const failure = new Promise<Error>((resolve) => child.once('error', resolve));
  process.kill(launcher, 'SIGKILL');
  const err = await failure;
  expect(err).toBeInstanceOf(GraderError);
  expect(err.message).toMatch(/process that starts contained children was killed by SIGKILL: not graded/);
  for (let waited = 0; alive(pid) && waited < 60_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(alive(pid)).toBe(false);
  // The next start gets a launcher of its own.
  const next = launch('/bin/echo', ['again'], { detached: false });
  expect((await readAll(next))[0]).toBe('again\n');
});

it('a lost launcher fails every child it ran, though one of them has nobody listening for its error', () => {
  // The listener-less child's error is thrown, as a ChildProcess's is; once, that throw kept the
  // children after it from ever hearing theirs, and a grading waited on them for ever.
  const script = `
    const { launch } = require('./lib/sandbox/launcher');
    // Tied to the launcher as contained commands are, so that neither sleep outlives it.
    const sleep = [${JSON.stringify(findTools().setpriv)}, ['--pdeathsig', 'SIGKILL', '--', 'sleep', '300'], { detached: false }];
    process.on('uncaughtException', (e) => console.log('uncaught: ' + e.message));
    const children = [launch(...sleep), launch(...sleep)];
    const heard = children[1];
    heard.once('error', (e) => { console.log('heard: ' + e.message); process.exit(0); });
    const fs = require('node:fs');
    const command = (pid) => { try { return fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0')[0]; } catch { return ''; } };
    // Killed once each setpriv has set its parent-death signal and become sleep (orphan.test.ts).
    const kill = () => {
      if (!children.every((c) => c.pid && command(c.pid) === 'sleep')) return setTimeout(kill, 20);
      const stat = fs.readFileSync('/proc/' + heard.pid + '/stat', 'utf8');
      process.kill(Number(stat.split(') ')[1].split(' ')[1]), 'SIGKILL');
    };
    kill();
    setTimeout(() => { console.log('never heard'); process.exit(1); }, 120000);`;
  const run = spawnSync(process.execPath, ['-r', RUN_TS, '-e', script], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  const lost = 'the process that starts contained children was killed by SIGKILL: not graded, the next run grades it again';
  expect(run.stdout.trim().split('\n')).toEqual([`uncaught: ${lost}`, `heard: ${lost}`]);
  expect(run.status).toBe(0);
});
