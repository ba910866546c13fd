/**
 * A seccomp filter for the child, installed without a native addon: perl (Debian's perl-base, on
 * every Debian and Ubuntu machine) sets no_new_privs and loads a BPF program with its `syscall`
 * builtin, then executes Node, which inherits the filter and can never remove it. It refuses what
 * the permission model does not check, whatever route the call takes (Node's API, V8's own files,
 * a flag set at run time):
 * - every socket (unix, abstract, network): no connecting to a user's D-Bus, ssh-agent or the
 *   journal, no listening on a path, so no socket file is left behind;
 * - every change to the file system: opening a file for writing, creating, linking, renaming,
 *   removing, changing modes, owners or times (so neither heap snapshots, V8 traces nor socket files
 *   outlive the child);
 * - reaching another process: signals, priorities, limits and scheduling only on itself, no ptrace
 *   or reading another's memory (where the child runs as the grader's user, that is all that keeps
 *   it off the grader);
 * - kernel state that outlives a process: keyrings, System V and POSIX message queues, shared memory;
 * - io_uring (its operations bypass the filter), bpf, userfaultfd, perf events.
 * Any other architecture's system calls (x32, i386 on x86-64) kill the process.
 */

export type FilterArch = 'x64' | 'arm64';

/** AUDIT_ARCH_* of each architecture, as the kernel puts it in seccomp_data.arch. */
const AUDIT_ARCH: Record<FilterArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };

/** System call numbers (x86-64: asm/unistd_64.h; arm64: asm-generic/unistd.h); absent where the architecture has none. */
export const NUMBERS: Record<string, Partial<Record<FilterArch, number>>> = {
  socket: { x64: 41, arm64: 198 }, socketpair: { x64: 53, arm64: 199 }, bind: { x64: 49, arm64: 200 },
  listen: { x64: 50, arm64: 201 }, accept: { x64: 43, arm64: 202 }, connect: { x64: 42, arm64: 203 }, accept4: { x64: 288, arm64: 242 },
  open: { x64: 2 }, openat: { x64: 257, arm64: 56 }, openat2: { x64: 437, arm64: 437 }, creat: { x64: 85 },
  name_to_handle_at: { x64: 303, arm64: 264 }, open_by_handle_at: { x64: 304, arm64: 265 },
  mkdir: { x64: 83 }, mkdirat: { x64: 258, arm64: 34 }, rmdir: { x64: 84 }, mknod: { x64: 133 }, mknodat: { x64: 259, arm64: 33 },
  link: { x64: 86 }, linkat: { x64: 265, arm64: 37 }, symlink: { x64: 88 }, symlinkat: { x64: 266, arm64: 36 },
  unlink: { x64: 87 }, unlinkat: { x64: 263, arm64: 35 }, rename: { x64: 82 }, renameat: { x64: 264, arm64: 38 }, renameat2: { x64: 316, arm64: 276 },
  truncate: { x64: 76, arm64: 45 }, chmod: { x64: 90 }, fchmod: { x64: 91, arm64: 52 }, fchmodat: { x64: 268, arm64: 53 }, fchmodat2: { x64: 452, arm64: 452 },
  chown: { x64: 92 }, fchown: { x64: 93, arm64: 55 }, lchown: { x64: 94 }, fchownat: { x64: 260, arm64: 54 },
  utime: { x64: 132 }, utimes: { x64: 235 }, futimesat: { x64: 261 }, utimensat: { x64: 280, arm64: 88 },
  setxattr: { x64: 188, arm64: 5 }, lsetxattr: { x64: 189, arm64: 6 }, fsetxattr: { x64: 190, arm64: 7 },
  removexattr: { x64: 197, arm64: 14 }, lremovexattr: { x64: 198, arm64: 15 }, fremovexattr: { x64: 199, arm64: 16 },
  kill: { x64: 62, arm64: 129 }, tkill: { x64: 200, arm64: 130 }, tgkill: { x64: 234, arm64: 131 },
  rt_sigqueueinfo: { x64: 129, arm64: 138 }, rt_tgsigqueueinfo: { x64: 297, arm64: 240 },
  pidfd_send_signal: { x64: 424, arm64: 424 }, pidfd_open: { x64: 434, arm64: 434 }, pidfd_getfd: { x64: 438, arm64: 438 },
  ptrace: { x64: 101, arm64: 117 }, process_vm_readv: { x64: 310, arm64: 270 }, process_vm_writev: { x64: 311, arm64: 271 },
  setpriority: { x64: 141, arm64: 140 }, prlimit64: { x64: 302, arm64: 261 }, ioprio_set: { x64: 251, arm64: 30 },
  sched_setaffinity: { x64: 203, arm64: 122 }, sched_setscheduler: { x64: 144, arm64: 119 }, sched_setparam: { x64: 142, arm64: 118 },
  sched_setattr: { x64: 314, arm64: 274 },
  add_key: { x64: 248, arm64: 217 }, request_key: { x64: 249, arm64: 218 }, keyctl: { x64: 250, arm64: 219 },
  shmget: { x64: 29, arm64: 194 }, semget: { x64: 64, arm64: 190 }, msgget: { x64: 68, arm64: 186 }, mq_open: { x64: 240, arm64: 180 },
  io_uring_setup: { x64: 425, arm64: 425 }, io_uring_enter: { x64: 426, arm64: 426 }, io_uring_register: { x64: 427, arm64: 427 },
  perf_event_open: { x64: 298, arm64: 241 }, bpf: { x64: 321, arm64: 280 }, userfaultfd: { x64: 323, arm64: 282 },
  prctl: { x64: 157, arm64: 167 },
};

const EPERM = 1;
const EACCES = 13;
const ENOSYS = 38;
/** O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | __O_TMPFILE: the same bits on x86-64 and arm64. */
const OPENS_FOR_WRITING = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000 | 0o20000000;

/** A value a rule compares an argument with: a number, or the child's own pid (known only as it starts). */
type Value = number | 'self' | '-self';

type Rule =
  | { calls: string[]; refuse: number }
  /** Refused when the argument has any of these bits. */
  | { calls: string[]; arg: number; bits: number; refuse: number }
  /** Allowed only when every listed argument (its low 32 bits: pids and ints) is one of its values. */
  | { calls: string[]; only: [arg: number, values: Value[]][]; refuse: number };

const SELF: Value[] = [0, 'self'];

export const RULES: readonly Rule[] = [
  { calls: ['socket', 'socketpair', 'bind', 'listen', 'accept', 'accept4', 'connect'], refuse: EACCES },
  { calls: ['open'], arg: 1, bits: OPENS_FOR_WRITING, refuse: EACCES },
  { calls: ['openat'], arg: 2, bits: OPENS_FOR_WRITING, refuse: EACCES },
  // Its flags are behind a pointer the filter cannot read; libc and libuv never need it.
  { calls: ['openat2'], refuse: ENOSYS },
  {
    calls: ['creat', 'mkdir', 'mkdirat', 'rmdir', 'mknod', 'mknodat', 'link', 'linkat', 'symlink', 'symlinkat', 'unlink', 'unlinkat',
      'rename', 'renameat', 'renameat2', 'truncate', 'chmod', 'fchmod', 'fchmodat', 'fchmodat2', 'chown', 'fchown', 'lchown', 'fchownat',
      'utime', 'utimes', 'futimesat', 'utimensat', 'setxattr', 'lsetxattr', 'fsetxattr', 'removexattr', 'lremovexattr', 'fremovexattr',
      'name_to_handle_at', 'open_by_handle_at'],
    refuse: EACCES,
  },
  // kill(0) and kill(-pid) reach the child's own process group: the grader starts it in a session of its own.
  { calls: ['kill'], only: [[0, [0, 'self', '-self']]], refuse: EPERM },
  { calls: ['tgkill', 'rt_tgsigqueueinfo', 'rt_sigqueueinfo'], only: [[0, ['self']]], refuse: EPERM },
  { calls: ['prlimit64', 'sched_setaffinity', 'sched_setscheduler', 'sched_setparam', 'sched_setattr'], only: [[0, SELF]], refuse: EPERM },
  // setpriority(PRIO_PROCESS, 0 or itself): PRIO_USER would renice every process of the grader's user.
  { calls: ['setpriority'], only: [[0, [0]], [1, SELF]], refuse: EPERM },
  {
    calls: ['tkill', 'pidfd_send_signal', 'pidfd_open', 'pidfd_getfd', 'ptrace', 'process_vm_readv', 'process_vm_writev', 'ioprio_set',
      'add_key', 'request_key', 'keyctl', 'shmget', 'semget', 'msgget', 'mq_open', 'perf_event_open', 'bpf', 'userfaultfd'],
    refuse: EPERM,
  },
  { calls: ['io_uring_setup', 'io_uring_enter', 'io_uring_register'], refuse: ENOSYS },
];

// Classic BPF, as seccomp runs it.
const LD_ABS_W = 0x20;
const JMP_JEQ_K = 0x15;
const JMP_JGE_K = 0x35;
const JMP_JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const X32_SYSCALL_BIT = 0x40000000;
/** struct seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8i (little-endian: its low 32 bits first). */
const argOffset = (arg: number) => 16 + 8 * arg;

/** One instruction; jumps name labels, resolved once the program is laid out. */
interface Instruction {
  code: number;
  k: Value;
  jt?: string;
  jf?: string;
  label?: string;
}

/** The program as a flat list of numbers (code, jt, jf, k per instruction), the child's own pid still symbolic. */
export function filterProgram(arch: FilterArch): Value[] {
  const program: Instruction[] = [];
  const add = (code: number, k: Value, jt?: string, jf?: string, label?: string) => program.push({ code, k, jt, jf, label });
  const blocks: Instruction[][] = [];
  add(LD_ABS_W, 4);
  add(JMP_JEQ_K, AUDIT_ARCH[arch], undefined, 'kill');
  add(LD_ABS_W, 0);
  if (arch === 'x64') add(JMP_JGE_K, X32_SYSCALL_BIT, 'kill');
  for (const [i, rule] of RULES.entries()) {
    const target = `rule${i}`;
    for (const call of rule.calls) {
      const nr = NUMBERS[call]?.[arch];
      if (nr !== undefined) add(JMP_JEQ_K, nr, target);
    }
    const refuse: Instruction = { code: RET_K, k: RET_ERRNO | rule.refuse };
    const allow: Instruction = { code: RET_K, k: RET_ALLOW };
    if ('bits' in rule) {
      blocks.push([{ code: LD_ABS_W, k: argOffset(rule.arg), label: target }, { code: JMP_JSET_K, k: rule.bits, jt: `refuse${i}` }, allow, { ...refuse, label: `refuse${i}` }]);
    } else if ('only' in rule) {
      const block: Instruction[] = [];
      for (const [c, [arg, values]] of rule.only.entries()) {
        const next = c + 1 < rule.only.length ? `rule${i}.${c + 1}` : `allow${i}`;
        block.push({ code: LD_ABS_W, k: argOffset(arg), label: c === 0 ? target : `rule${i}.${c}` });
        for (const [v, value] of values.entries()) block.push({ code: JMP_JEQ_K, k: value, jt: next, jf: v === values.length - 1 ? `refuse${i}` : undefined });
      }
      blocks.push([...block, { ...refuse, label: `refuse${i}` }, { ...allow, label: `allow${i}` }]);
    } else {
      blocks.push([{ ...refuse, label: target }]);
    }
  }
  add(RET_K, RET_ALLOW);
  for (const block of blocks) program.push(...block);
  add(RET_K, RET_KILL_PROCESS, undefined, undefined, 'kill');

  const at = new Map(program.flatMap((ins, pc) => (ins.label ? [[ins.label, pc] as const] : [])));
  const offset = (pc: number, label: string | undefined) => {
    if (label === undefined) return 0;
    const distance = at.get(label)! - pc - 1;
    if (!(distance >= 0 && distance <= 255)) throw new Error(`seccomp filter: a jump to ${label} of ${distance} instructions`);
    return distance;
  };
  return program.flatMap((ins, pc) => [ins.code, offset(pc, ins.jt), offset(pc, ins.jf), ins.k]);
}

/** The architecture this Node runs on, if the filter knows it. */
export function filterArch(arch: string = process.arch): FilterArch | undefined {
  return arch === 'x64' || arch === 'arm64' ? arch : undefined;
}

/**
 * The perl program that installs the filter and executes its arguments (`perl -e PROGRAM -- cmd…`).
 * prctl(PR_SET_NO_NEW_PRIVS) lets an unprivileged process install it; prctl(PR_SET_SECCOMP,
 * SECCOMP_MODE_FILTER, &sock_fprog) installs it (sock_fprog: a u16 count, padding, a pointer).
 * Its own pid stands for the child's: exec keeps it.
 */
export function installerProgram(arch: FilterArch): string {
  const words = filterProgram(arch).map((v) => (v === 'self' ? '$$' : v === '-self' ? '(-$$ & 0xffffffff)' : String(v >>> 0)));
  const prctl = NUMBERS.prctl[arch]!;
  return [
    `my @i=(${words.join(',')});`,
    'my $f=pack("(SCCL)*",@i);my $p=pack("S x6 P",@i/4,$f);',
    `syscall(${prctl},38,1,0,0,0)==0 or die "no_new_privs refused: $!\\n";`,
    `syscall(${prctl},22,2,$p)==0 or die "seccomp refused: $!\\n";`,
    'exec {$ARGV[0]} @ARGV;die "exec $ARGV[0]: $!\\n";',
  ].join('');
}

/** The command prefix that runs what follows under the filter: `-f` skips sitecustomize, and `--` ends perl's options. */
export function filterPrefix(perl: string, arch: FilterArch): string[] {
  return [perl, '-f', '-e', installerProgram(arch), '--'];
}
