/**
 * A command in a PID namespace of its own when this machine allows one (root with namespaces), so
 * that a failure of containment, a kill(-1) that gets out, reaches nothing else on this machine;
 * elsewhere the command as it is (the grader's own containment is then all there is).
 */
import { prepareChild } from '../../lib/grading/grade';
import { containmentReport } from '../../lib/sandbox/containment';

let setting: string | undefined;

export function inOwnPidNamespace(command: string[]): string[] {
  setting ??= containmentReport(prepareChild()).setting;
  return setting === 'namespaces' ? ['unshare', '--pid', '--fork', '--kill-child=SIGKILL', '--mount-proc', '--', ...command] : command;
}
