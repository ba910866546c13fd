/** Tests that kill or time a process the grader started find it here, from /proc. */
import fs from 'node:fs';

/** The fields of /proc/<pid>/stat after the command's name (which may hold spaces and parentheses). */
const statFields = (pid: number | string) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
};

/** CPU ticks a process has spent, user and system (throws when it is gone). */
export function cpuTicks(pid: number): number {
  const fields = statFields(pid);
  return Number(fields[11]) + Number(fields[12]);
}

/** This process's own children whose command line holds `command`, each with the CPU ticks it has spent. */
export function ownChildren(command: string): Map<number, number> {
  const found = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const fields = statFields(entry);
      if (Number(fields[1]) === process.pid && fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(command)) found.set(Number(entry), Number(fields[11]) + Number(fields[12]));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
