/**
 * The GitHub workflow for the student repository, read as GitHub reads it (YAML):
 * `classroom/github-workflow.yml`, shipped as the handout's .github/workflows/classroom.yml. Its
 * grading steps run as a runner would, in the handout installed by its own `npm ci`, on the stubs
 * and on what a student pushed: selftest/classroomDocs.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACTIVE_LTS_RELEASE } from '../lib/gradescope/nodeRelease';
import { PROJECT_ROOT } from '../lib/paths';
import { buildHandout } from '../lib/release';
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

describe('classroom/github-workflow.yml, the handout\'s .github/workflows/classroom.yml', () => {
  const steps = onlyJob(grade).steps;
  const stepRunning = (pattern: RegExp) => steps.find((s) => s.run !== undefined && pattern.test(s.run));
  const gradeStep = stepRunning(/^npm run grade\b/m)!;

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

  it('is the handout\'s .github/workflows/classroom.yml, byte for byte', () => {
    const shipped = buildHandout(ASSIGNMENT).files.get('.github/workflows/classroom.yml');
    expect(shipped?.equals(fs.readFileSync(path.join(PROJECT_ROOT, 'classroom', 'github-workflow.yml')))).toBe(true);
  });
});
