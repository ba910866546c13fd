/**
 * The containment a grading run used, in words for a terminal or a log: one line for a batch
 * summary, every layer for --verbose and the Gradescope log (docs/security.md explains each).
 */
import type { ContainmentReport } from '../model/containmentReport';

const SETTING: Record<ContainmentReport['setting'], string> = {
  namespaces: 'root, with namespaces of its own per child',
  'own-uids': 'root without namespaces (as in Docker): a uid and a root folder of its own per child',
  'user-namespaces': 'not root: namespaces inside a user namespace of its own per child',
  'same-user': "not root, and no namespace allowed: children run as the grader's user",
};

export function containmentLine(report: ContainmentReport): string {
  const gaps = report.missing.map((gap) => gap.split(/[:(]/)[0].trim());
  return `Containment: ${SETTING[report.setting]}${gaps.length ? `; not in force: ${gaps.join('; ')}` : ''}`;
}

export function containmentBlock(report: ContainmentReport): string[] {
  return [
    `Containment: ${SETTING[report.setting]}`,
    ...report.in_force.map((layer) => `  in force: ${layer}`),
    ...report.missing.map((gap) => `  not in force: ${gap}`),
  ];
}
