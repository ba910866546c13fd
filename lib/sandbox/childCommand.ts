/**
 * The contained command that starts each child (containment.ts chooses it for the layers this
 * machine allows): its own module so that each way of containing (namespaces.ts, jail.ts…) can
 * build one without importing the module that chooses among them.
 */
import type { ContainmentReport } from '../model/containmentReport';
import type { UidPool } from './uidPool';

export interface ChildCommand {
  file: string;
  /** The command's arguments; with `uids`, UID_SLOT stands where each child's own uid goes. */
  args: string[];
  /** Layers not in force, each with why: for the report, the summary and docs/security.md. */
  missing: string[];
  /** Layers in force, in words. */
  inForce?: string[];
  setting?: ContainmentReport['setting'];
  /**
   * Start it in a session (and process group) of its own. A PID namespace does not cover process
   * groups: without this, `kill(0)` from a child (its parent is pid 0 there, so
   * `process.kill(process.ppid)` is one) reaches every child in the grader's group.
   */
  ownSession?: boolean;
  /** Root without namespaces: each child runs as a uid of its own from this pool. */
  uids?: UidPool;
  /** The folder the child starts in: empty, and one it cannot write. */
  cwd?: string;
  /** The memory cap it runs under, as verdicts name it (lib/grading/hangWords.ts memoryWords). */
  memoryBytes?: number;
}
