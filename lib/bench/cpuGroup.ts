/**
 * CPU time counted by the kernel for a shell and everything it starts, whoever reaps them.
 *
 * The shell's `times` (getrusage of children) counts a process only once its parent waited for it.
 * A grading process's launcher dies with it (a parent-death signal) and is reaped by init, and the
 * CPU of every contained child the launcher had waited for goes with it: a quiet `.ci/run` whose
 * shell counted 1118 s of CPU kept the machine busy for 1596 s, with nothing else running.
 * A control group counts every process in it, and a process stays in its parent's group.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface CpuGroup {
  /** A shell command that moves the shell running it (`$$`) into the group. */
  joinCommand: string;
  /** CPU seconds spent in the group so far. */
  seconds(): number;
  /** Ends what is left in the group, then removes it. */
  remove(): void;
}

interface Mount {
  dir: string;
  type: string;
  options: string[];
}

function mounts(): Mount[] {
  return fs.readFileSync('/proc/mounts', 'utf8').trim().split('\n').map((line) => {
    const [, dir, type, options] = line.split(' ');
    // /proc/mounts writes a space, tab, newline or backslash in a path as an octal escape (as childView.ts's mountPoints decodes them).
    return { dir: dir.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))), type, options: options.split(',') };
  });
}

/** Where a group may be made, and how it counts: cgroup v1's cpuacct, else the v2 hierarchy below this process's own group. */
function hierarchy(): { parent: string; read: (dir: string) => number } | undefined {
  const all = mounts();
  const v1 = all.find((m) => m.type === 'cgroup' && m.options.includes('cpuacct'));
  if (v1) return { parent: v1.dir, read: (dir) => Number(fs.readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8')) / 1e9 };
  const v2 = all.find((m) => m.type === 'cgroup2');
  const own = /^0::(.*)$/m.exec(fs.readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
  if (!v2 || own === undefined) return undefined;
  return {
    parent: path.join(v2.dir, own),
    read: (dir) => Number(/^usage_usec (\d+)$/m.exec(fs.readFileSync(path.join(dir, 'cpu.stat'), 'utf8'))?.[1]) / 1e6,
  };
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** A new group named `name`, or why none can be made here (no cgroup hierarchy, or no right to make one). */
export function makeCpuGroup(name: string): CpuGroup | { why: string } {
  let found: ReturnType<typeof hierarchy>;
  try {
    found = hierarchy();
  } catch (err) {
    return { why: `the control groups cannot be read (${(err as Error).message})` };
  }
  if (!found) return { why: 'no control group hierarchy that counts CPU is mounted' };
  const dir = path.join(found.parent, name);
  try {
    fs.mkdirSync(dir);
    found.read(dir);
  } catch (err) {
    try {
      fs.rmdirSync(dir);
    } catch {
      // Never made.
    }
    return { why: `no control group can be made in ${found.parent} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  const procs = path.join(dir, 'cgroup.procs');
  const joinCommand = `echo $$ > '${procs}'`;
  // A group that could be made may still refuse a process (cgroup v2's rules): a shell tries to join it first.
  const tried = spawnSync('/bin/sh', ['-c', joinCommand], { encoding: 'utf8' });
  if (tried.status !== 0) {
    try {
      fs.rmdirSync(dir);
    } catch {
      // Left for the system to clean: an empty group holds nothing.
    }
    return { why: `no process may join a control group made in ${found.parent} (${tried.stderr.trim() || `exit ${tried.status}`})` };
  }
  return {
    joinCommand,
    seconds: () => found.read(dir),
    remove: () => {
      // A leftover (a process the run left behind) would keep the group from being removed.
      for (let tries = 0; tries < 50; tries++) {
        const left = fs.readFileSync(procs, 'utf8').split('\n').filter(Boolean).map(Number);
        for (const pid of left) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Gone already.
          }
        }
        try {
          fs.rmdirSync(dir);
          return;
        } catch {
          pause(100);
        }
      }
    },
  };
}
