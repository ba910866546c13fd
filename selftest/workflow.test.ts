/**
 * The GitHub workflow for the student repository, read as GitHub reads it (YAML) and run the way a
 * runner would, in the handout (`npm run release`, with the project's packages linked in place of
 * `npm ci`): `classroom/github-workflow.yml`'s grading steps (shipped as the handout's
 * .github/workflows/classroom.yml) on the stubs and with the reference.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACTIVE_LTS_RELEASE } from '../lib/gradescope/nodeRelease';
import { PROJECT_ROOT } from '../lib/paths';
import { buildHandout, writeHandout } from '../lib/release';
import { visibleCases } from '../tests/cases';
import { linkNodeModules } from './linkNodeModules';
import { ASSIGNMENT } from '../tests/assignment';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  shell?: string;
  with?: Record<string, string | number>;
}
interface Workflow {
  name: string;
  on: unknown;
  jobs: Record<string, { steps: Step[] }>;
}

const readWorkflow = (file: string) => parse(fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8')) as Workflow;
const grade = readWorkflow('classroom/github-workflow.yml');
const onlyJob = (workflow: Workflow) => Object.values(workflow.jobs)[0];
const VISIBLE_MAX = visibleCases().reduce((sum, c) => sum + c.points, 0);

let temp: string;
let stubs: string;
let solved: string;

/** A step's script as GitHub runs `shell: bash`: bash --noprofile --norc -eo pipefail {0}. */
function runStep(script: string, cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string }> {
  const file = path.join(temp, `step-${Math.random().toString(36).slice(2)}.sh`);
  fs.writeFileSync(file, script);
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete fullEnv.ATTENTION_SUBMISSION;
  if (!env.GITHUB_ACTIONS) delete fullEnv.GITHUB_ACTIONS;
  return new Promise((resolve) => {
    execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], { cwd, env: fullEnv, encoding: 'utf8', maxBuffer: 16 << 20 },
      (err, stdout) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout }));
  });
}

beforeAll(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), 'workflow-'));
  // The grader's contained child runs as nobody when the tests run as root.
  fs.chmodSync(temp, 0o755);
  const handout = buildHandout(ASSIGNMENT);
  [stubs, solved] = ['stubs', 'solved'].map((name) => {
    const dir = path.join(temp, name);
    writeHandout(handout, dir);
    linkNodeModules(dir);
    return dir;
  });
  fs.copyFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), path.join(solved, 'student', 'index.ts'));
});

afterAll(() => {
  if (temp) fs.rmSync(temp, { recursive: true, force: true });
});

describe('classroom/github-workflow.yml, the handout\'s .github/workflows/classroom.yml', () => {
  const steps = onlyJob(grade).steps;
  const stepRunning = (pattern: RegExp) => steps.find((s) => s.run !== undefined && pattern.test(s.run));
  const gradeStep = stepRunning(/^npm run grade\b/m)!;
  const pointsStep = steps[steps.indexOf(gradeStep) + 1];

  it('on push: checkout, the Active LTS Node (as Gradescope), npm ci, then the grader with results.json, in that order', () => {
    expect(grade.on).toHaveProperty('push');
    const checkout = steps.findIndex((s) => s.uses?.startsWith('actions/checkout@'));
    const node = steps.findIndex((s) => s.uses?.startsWith('actions/setup-node@'));
    const install = steps.findIndex((s) => s.run?.trim() === 'npm ci');
    expect(`v${steps[node].with?.['node-version']}.`).toBe(/^v\d+\./.exec(ACTIVE_LTS_RELEASE)![0]);
    expect(gradeStep.run).toMatch(/^npm run grade -- --json results\.json\b/m);
    expect([checkout, node, install, steps.indexOf(gradeStep)].every((at, i, all) => at >= 0 && (i === 0 || at > all[i - 1])))
      .toBe(true);
  });

  it('grading runs with workflow commands stopped by a fresh token, resumed on exit', () => {
    expect(gradeStep.shell).toBe('bash');
    expect(gradeStep.run).toMatch(/echo "::stop-commands::\$\{token\}"[\s\S]*trap 'echo "::\$\{token\}::"' EXIT[\s\S]*npm run grade/);
  });

  const cases = [
    { name: 'stubs', dir: () => stubs, points: `0/${VISIBLE_MAX}`, status: 'not_implemented' },
    { name: 'reference as student/index.ts', dir: () => solved, points: `${VISIBLE_MAX}/${VISIBLE_MAX}`, status: 'passed' },
  ];
  it.concurrent.each(cases)('run on the $name: exit 0, summary written, points re-posted as the only command', async ({ dir, points, status }) => {
    const summary = path.join(temp, `summary-${path.basename(dir())}.md`);
    fs.writeFileSync(summary, '');
    const graded = await runStep(gradeStep.run!, dir(), { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    expect(graded.code, graded.stdout).toBe(0);
    const lines = graded.stdout.trimEnd().split('\n');
    const token = /^::stop-commands::([0-9a-f-]{36})$/.exec(lines[0])?.[1];
    expect(token, lines[0]).toBeDefined();
    expect(lines.at(-1)).toBe(`::${token}::`);
    expect(lines).toContain(`::notice title=Points::Points ${points}`);
    const table = lines.filter((line) => /^test_\w+ /.test(line));
    expect(table.map((line) => line.split(/\s+/)[2])).toEqual(visibleCases().map(() => status));
    expect(fs.readFileSync(summary, 'utf8')).toContain(`: ${points} points`);
    expect(fs.existsSync(path.join(dir(), 'results.json'))).toBe(true);

    const posted = await runStep(pointsStep.run!, dir());
    expect(posted).toEqual({ code: 0, stdout: `::notice title=Points::Points ${points}\n` });
  });
});
