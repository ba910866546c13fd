/**
 * The syscall filter (syscallFilter.ts): its program is well formed for each architecture, and on
 * this machine, installed by perl before Node, it refuses what it must and lets Node run.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../selftest/grader/materialize';
import { findTools } from './probeLayers';
import { filterArch, filterPrefix, filterProgram, NUMBERS, RULES, type FilterArch } from './syscallFilter';

describe('the filter program', () => {
  it.each(['x64', 'arm64'] as FilterArch[])('%s: whole instructions, every jump inside the program, under the kernel cap', (arch) => {
    const program = filterProgram(arch);
    expect(program.length % 4).toBe(0);
    const count = program.length / 4;
    expect(count).toBeLessThan(4096);
    for (let pc = 0; pc < count; pc++) {
      const [code, jt, jf] = program.slice(4 * pc, 4 * pc + 3) as number[];
      if ((code & 0x07) === 0x05) expect(pc + 1 + Math.max(jt, jf), `instruction ${pc}`).toBeLessThan(count);
    }
    // The last instruction kills: an unknown architecture never falls through.
    expect(program.slice(-4)).toEqual([0x06, 0, 0, 0x80000000]);
  });

  it('every call a rule names has its number: all on x86-64, all but the forms arm64 never had', () => {
    const legacy = ['open', 'creat', 'mkdir', 'rmdir', 'mknod', 'link', 'symlink', 'unlink', 'rename', 'chmod', 'chown', 'lchown', 'utime', 'utimes', 'futimesat'];
    for (const call of RULES.flatMap((rule) => rule.calls)) {
      expect(NUMBERS[call]?.x64, call).toBeTypeOf('number');
      if (!legacy.includes(call)) expect(NUMBERS[call]?.arm64, call).toBeTypeOf('number');
    }
  });
});

const { perl } = findTools();
const arch = filterArch();

describe.runIf(perl && arch)('installed before Node', () => {
  const dir = tempDir('syscall-filter');
  const listening = path.join(dir, 'listening.sock');
  const server = net.createServer((socket) => socket.destroy());
  beforeAll(() => new Promise<void>((resolve) => server.listen(listening, resolve)));
  afterAll(() => {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** What each call gave a Node started under the filter: "ok" or the error code. */
  function underFilter(calls: Record<string, string>, asyncCalls: Record<string, string> = {}): Record<string, string> {
    const script = `
      const fs = require('fs'), net = require('net'), os = require('os'), dir = ${JSON.stringify(dir)};
      const out = {};
      for (const [name, call] of Object.entries(${JSON.stringify(calls)})) {
        try { new Function('fs', 'os', 'dir', call)(fs, os, dir); out[name] = 'ok'; } catch (e) { out[name] = e.code || e.message; }
      }
      const pending = Object.entries(${JSON.stringify(asyncCalls)}).map(([name, call]) => new Promise((resolve) => {
        const done = (v) => { out[name] = v; resolve(); };
        try { new Function('net', 'dir', 'done', call)(net, dir, done); } catch (e) { done(e.code || e.message); }
      }));
      Promise.all(pending).then(() => console.log(JSON.stringify(out)));`;
    const run = spawnSync(filterPrefix(perl!, arch!)[0], [...filterPrefix(perl!, arch!).slice(1), process.execPath, '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    return JSON.parse(run.stdout) as Record<string, string>;
  }

  it('refuses every socket: connecting to a unix socket, listening on a path or an abstract name, TCP', () => {
    const connect = (target: string) => `const s = net.connect(${target}); s.on('connect', () => { s.destroy(); done('ok'); }); s.on('error', (e) => done(e.code));`;
    const listen = (target: string) => `const s = net.createServer(); s.on('error', (e) => done(e.code)); s.listen(${target}, () => { s.close(); done('ok'); });`;
    expect(underFilter({}, {
      unix: connect(JSON.stringify(listening)),
      path: listen('dir + "/made.sock"'),
      abstract: listen('"\\0attention-grader-test"'),
      tcp: listen('0, "127.0.0.1"'),
    })).toEqual({ unix: 'EACCES', path: 'EACCES', abstract: 'EACCES', tcp: 'EACCES' });
    expect(fs.readdirSync(dir)).toEqual(['listening.sock']);
  });

  it('refuses every change to a file, and reads as before', () => {
    fs.writeFileSync(path.join(dir, 'there.txt'), 'kept');
    const result = underFilter({
      write: 'fs.writeFileSync(dir + "/new.txt", "x")',
      append: 'fs.appendFileSync(dir + "/there.txt", "x")',
      readWrite: 'fs.openSync(dir + "/there.txt", "r+")',
      mkdir: 'fs.mkdirSync(dir + "/sub")',
      unlink: 'fs.unlinkSync(dir + "/there.txt")',
      rename: 'fs.renameSync(dir + "/there.txt", dir + "/moved.txt")',
      link: 'fs.linkSync(dir + "/there.txt", dir + "/hard.txt")',
      symlink: 'fs.symlinkSync("there.txt", dir + "/soft.txt")',
      chmod: 'fs.chmodSync(dir + "/there.txt", 0o777)',
      utimes: 'fs.utimesSync(dir + "/there.txt", 0, 0)',
      truncate: 'fs.truncateSync(dir + "/there.txt")',
      read: 'if (fs.readFileSync(dir + "/there.txt", "utf8") !== "kept") throw new Error("read")',
    });
    expect(result).toEqual({
      write: 'EACCES', append: 'EACCES', readWrite: 'EACCES', mkdir: 'EACCES', unlink: 'EACCES', rename: 'EACCES', link: 'EACCES',
      symlink: 'EACCES', chmod: 'EACCES', utimes: 'EACCES', truncate: 'EACCES', read: 'ok',
    });
    expect(fs.readdirSync(dir).sort()).toEqual(['listening.sock', 'there.txt']);
    expect(fs.readFileSync(path.join(dir, 'there.txt'), 'utf8')).toBe('kept');
  });

  it('reaches no other process: signals, priority and limits on itself only', () => {
    expect(underFilter({
      parent: 'process.kill(process.ppid, 0)',
      everyone: 'process.kill(-1, 0)',
      parentPriority: 'os.setPriority(process.ppid, 19)',
      self: 'process.kill(process.pid, 0)',
      ownGroup: 'process.kill(0, 0)',
      ownPriority: 'os.setPriority(0, 1)',
    })).toEqual({ parent: 'EPERM', everyone: 'EPERM', parentPriority: 'ERR_SYSTEM_ERROR', self: 'ok', ownGroup: 'ok', ownPriority: 'ok' });
  });

  /**
   * What each raw system call gives perl (its `syscall` builtin reaches any number, as native code
   * would): the errno, or "ok". The refusal comes before the kernel reads an argument, so zeros do.
   */
  function rawCalls(calls: readonly string[], filtered: boolean): Record<string, string> {
    const script = calls.map((call) => `print "${call}=", (syscall(${NUMBERS[call][arch!]},0,0,0,0,0) == -1 ? $!+0 : "ok"), "\\n";`).join('');
    const command = [...(filtered ? filterPrefix(perl!, arch!) : []), perl!, '-e', script];
    const run = spawnSync(command[0], command.slice(1), { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    return Object.fromEntries(run.stdout.trim().split('\n').map((line) => line.split('=') as [string, string]));
  }

  // Generated from the rules: every call a rule refuses whatever its arguments (keyrings, System V
  // and POSIX IPC, io_uring, bpf, userfaultfd, perf events, ptrace, sockets, file changes…).
  const unconditional = RULES.flatMap((rule) => ('bits' in rule || 'only' in rule ? [] : rule.calls.filter((call) => NUMBERS[call][arch!] !== undefined).map((call) => [call, rule.refuse] as const)));

  it('every call a rule refuses outright is refused with its errno, however it is made', () => {
    expect(unconditional.map(([call]) => call)).toEqual(expect.arrayContaining(['keyctl', 'shmget', 'mq_open', 'io_uring_setup', 'bpf', 'userfaultfd', 'perf_event_open', 'ptrace']));
    const calls = unconditional.map(([call]) => call);
    const refused = rawCalls(calls, true);
    expect(refused).toEqual(Object.fromEntries(unconditional.map(([call, errno]) => [call, String(errno)])));
    // Without the filter the kernel answers otherwise (a test that could not fail would not be one):
    // shown on calls that change nothing given zeros. Not all of them: msgget(IPC_PRIVATE) would
    // create a message queue that outlives the test, ptrace(PTRACE_TRACEME) would make this process
    // perl's tracer.
    const harmless = ['socket', 'mq_open', 'io_uring_setup', 'perf_event_open'];
    const answered = rawCalls(harmless, false);
    for (const call of harmless) expect(answered[call], call).not.toBe(refused[call]);
  });

  it.runIf(arch === 'x64')("another architecture's system call (x32's numbering) kills the process", () => {
    const getpid = 39;
    const command = [...filterPrefix(perl!, arch!), perl!, '-e', `syscall(${0x40000000 + getpid}); print "survived\\n";`];
    const run = spawnSync(command[0], command.slice(1), { encoding: 'utf8' });
    expect([run.signal, run.stdout]).toEqual(['SIGSYS', '']);
  });
});
