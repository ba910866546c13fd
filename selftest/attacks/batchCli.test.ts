/**
 * Attacks through `npm run grade -- --submissions` as instructors and CI run it (not a CI terminal:
 * one line per submission), as root: a folder named with escape sequences and workflow commands,
 * an attack whose errors and output are made of them, kill(-1) and kill(0) loops, a link to a
 * classmate and a link in place of a submission folder, beside two correct submissions. The run is
 * in a PID namespace of the test's own where the machine allows one, so a kill that got out would
 * reach nothing else here.
 * Every submission gets its row, the correct ones full marks, and the log shows no control
 * character and no workflow command from a submission.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { materialize, tempDir } from '../grader/materialize';
import { LAYOUTS } from './layouts';
import { inOwnPidNamespace } from './ownPidNamespace';
import { csvRecords } from '../../lib/report/exports';

const IS_ROOT = process.getuid?.() === 0;
const work = tempDir('batch-cli');
const submissions = path.join(work, 'submissions');
const out = path.join(work, 'out');
const attack = (name: string, folder = name) => materialize(path.join(__dirname, `${name}.ts`), submissions, folder);
const EVIL_NAME = 'evil\u001b[2J\u001b[31m::error::owned\r##[group]x\u0007';

function run() {
  const reference = path.join(PROJECT_ROOT, 'reference', 'index.ts');
  materialize(reference, submissions, 'good');
  materialize(reference, submissions, 'good_too');
  for (const file of ['control_characters', 'kill_everyone', 'kill_parent']) attack(file);
  attack('control_characters', EVIL_NAME);
  fs.copyFileSync(path.join(__dirname, 'kit.ts'), path.join(submissions, 'kill_everyone', 'kit.ts'));
  fs.mkdirSync(path.join(submissions, 'link_to_classmate'));
  LAYOUTS.link_to_classmate.build(path.join(submissions, 'link_to_classmate'), { outside: work });
  fs.symlinkSync(path.join(submissions, 'good'), path.join(submissions, 'linked_folder'));
  const command = [
    process.execPath, RUN_TS, 'scripts/grade.ts',
    '--submissions', submissions, '--out', out, '--timeout', '3', '--jobs', '2',
  ];
  const [file, ...args] = inOwnPidNamespace(command);
  return spawnSync(file, args, { cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, GITHUB_ACTIONS: 'true' }, timeout: 240_000 });
}

describe.runIf(IS_ROOT)('a hostile batch through the command line, as root', () => {
  let result: ReturnType<typeof run>;
  let log = '';
  beforeAll(() => {
    result = run();
    log = `${result.stdout}\n${result.stderr}`;
  });

  it('completes with a row for every submission, the correct ones with full marks', () => {
    expect(result.status, log).toBe(0);
    const rows = csvRecords(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8'));
    expect(rows).toHaveLength(8);
    const total = (name: string) => rows.find((r) => r.name === name)?.total;
    expect(total('good')).toBe('12');
    expect(total('good_too')).toBe('12');
    expect(total('link_to_classmate')).toBe('0');
    expect(total('linked_folder')).toBe('0');
  });

  it('the log carries no control character and no workflow command from a submission', () => {
    // eslint-disable-next-line no-control-regex
    expect(log).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    for (const line of log.split('\n')) {
      expect(line.trim().startsWith('::'), line).toBe(false);
      expect(line.includes('##['), line).toBe(false);
    }
    expect(log).toMatch(/evil/);
  });
});
