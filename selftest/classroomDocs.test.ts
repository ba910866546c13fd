/**
 * docs/classroom.md, run as written: every block marked `sh selftest`, in order, with local
 * folders standing in for GitHub (a bare template repository, a course's student repositories
 * cloned from it as Classroom does, SUBMISSIONS_BASE_URL for fetch-submissions). What happens in
 * GitHub's web pages is between the blocks, done here by the test itself.
 *
 * The student's clone is the handout installed as a student installs it (its own `npm ci`, offline
 * from the npm cache the project's own `npm ci` filled): the one install of the handout in the
 * self-tests. Between the blocks, in that install, every script the handout ships runs, and its
 * GitHub workflow's grading steps run as a runner would run them on what the student pushed. The
 * stubs are graded there once, by `npm run grade -- --html` (exit 0, 0 points): a workflow run on
 * them would grade them a second time. selftest/release.test.ts checks what the handout holds,
 * with packages linked.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { parse } from 'yaml';
import { PAGES_DIR, PROJECT_ROOT } from '../lib/paths';
import { csvRecords } from '../lib/report/exports';
import { visibleCases } from '../tests/cases';

const DOC = path.join(PROJECT_ROOT, 'docs', 'classroom.md');
const VISIBLE_MAX = visibleCases().reduce((sum, c) => sum + c.points, 0);

/** The `sh selftest` blocks of the document, in order. */
function runnableBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh selftest\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, encoding: 'utf8', maxBuffer: 32 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe('docs/classroom.md', () => {
  it('has the four steps, and the blocks it marks as runnable', () => {
    const text = fs.readFileSync(DOC, 'utf8');
    expect(text.match(/^## \d\. .*$/gm)).toEqual([
      '## 1. Cut the handout and make it the template repository',
      '## 2. Create the Classroom assignment',
      '## 3. What a student does, and sees on each push',
      '## 4. Grade the course',
    ]);
    expect(runnableBlocks(text)).toHaveLength(4);
    expect(text).toContain("**Classroom's own dashboard shows no score**");
    expect(text).toContain('**The `submissions` artifact**');
  });
});

interface Step {
  run?: string;
}

let root: string;
let work: string;
let course: string;
let template: string;
let env: NodeJS.ProcessEnv;
let blocks: string[];
/** The student's clone, installed by the student's block. */
let clone: string;
/** Where npm's cache lacks what the handout's lock names, nothing installs offline: what needs the install is skipped. */
let notCached = false;
let installed = false;
const needsInstall = (ctx: TestContext) => {
  if (notCached) ctx.skip();
  expect(installed, 'the student\'s block did not install the handout').toBe(true);
};

/** Runs `command args` in the clone as the student's shell would, without the surrounding run's CI variables. */
function inClone(command: string, args: string[], extra: NodeJS.ProcessEnv = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: clone, env: { ...env, ...extra }, encoding: 'utf8', maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

/**
 * The clone's own .github/workflows/classroom.yml (classroom/github-workflow.yml as shipped): its
 * grading step as GitHub runs `shell: bash` (bash --noprofile --norc -eo pipefail {0}), then the
 * step after it, which re-posts the points. Both must end well and say `points`; the grader's
 * table says `status` of every visible case.
 */
async function workflowGrades(points: string, status: string): Promise<void> {
  const steps = (Object.values((parse(fs.readFileSync(path.join(clone, '.github', 'workflows', 'classroom.yml'), 'utf8')) as { jobs: Record<string, { steps: Step[] }> }).jobs)[0]).steps;
  const gradeStep = steps.find((s) => s.run !== undefined && /^npm run grade\b/m.test(s.run))!;
  const pointsStep = steps[steps.indexOf(gradeStep) + 1];
  const runStep = (script: string, extra: NodeJS.ProcessEnv = {}) => {
    const file = path.join(root, `step-${Math.random().toString(36).slice(2)}.sh`);
    fs.writeFileSync(file, script);
    return new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], { cwd: clone, env: { ...env, ...extra }, encoding: 'utf8', maxBuffer: 16 << 20 },
        (err, stdout) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout }));
    });
  };
  const summary = path.join(root, `summary-${status}.md`);
  fs.writeFileSync(summary, '');
  fs.rmSync(path.join(clone, 'results.json'), { force: true });
  const graded = await runStep(gradeStep.run!, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
  expect(graded.code, graded.stdout).toBe(0);
  const lines = graded.stdout.trimEnd().split('\n');
  const token = /^::stop-commands::([0-9a-f-]{36})$/.exec(lines[0])?.[1];
  expect(token, lines[0]).toBeDefined();
  expect(lines.at(-1)).toBe(`::${token}::`);
  expect(lines).toContain(`::notice title=Points::Points ${points}`);
  const table = lines.filter((line) => /^test_\w+ /.test(line));
  expect(table.map((line) => line.split(/\s+/)[2])).toEqual(visibleCases().map(() => status));
  expect(fs.readFileSync(summary, 'utf8')).toContain(`: ${points} points`);
  expect(fs.existsSync(path.join(clone, 'results.json'))).toBe(true);

  const posted = await runStep(pointsStep.run!);
  expect(posted).toEqual({ code: 0, stdout: `::notice title=Points::Points ${points}\n` });
}

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'classroom-'));
  // The grader's contained child runs as another uid when the tests run as root: it must reach the installed packages.
  fs.chmodSync(root, 0o755);
  work = path.join(root, 'work');
  const github = path.join(root, 'github');
  course = path.join(github, 'your-course');
  fs.mkdirSync(work);
  fs.mkdirSync(course, { recursive: true });
  template = path.join(course, 'attention-template.git');
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', template]);
  env = {
    ...process.env, WORK: work, TEMPLATE_URL: template, COURSE: course, SUBMISSIONS_BASE_URL: `${github}${path.sep}`,
    SOLUTION: path.join(PROJECT_ROOT, 'reference', 'index.ts'), GIT_TERMINAL_PROMPT: '0',
  };
  delete env.ATTENTION_SUBMISSION;
  delete env.GITHUB_ACTIONS;
  delete env.GITHUB_STEP_SUMMARY;
  blocks = runnableBlocks(fs.readFileSync(DOC, 'utf8'));
  clone = path.join(work, 'attention-ada');
});

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe('docs/classroom.md, run as written: handout → template → a student repository per student → pushes → fetched and graded', () => {
  it('step 1: the handout, pushed as the template; Classroom makes a repository per student from it', async () => {
    const released = await bash(blocks[0], PROJECT_ROOT, env);
    expect(released.code, released.output).toBe(0);
    expect(execFileSync('git', ['--git-dir', template, 'ls-tree', '-r', '--name-only', 'main'], { encoding: 'utf8' })).toContain('.github/workflows/classroom.yml');
    // GitHub Classroom: a repository per student, made from the template.
    for (const name of ['ada', 'bo']) execFileSync('git', ['clone', '--quiet', '--bare', template, path.join(course, `attention-${name}.git`)]);
  });

  it('step 3, the student: clone, npm ci from the handout\'s own package.json and lock (offline, from the npm cache), npm test names the stub', async (ctx) => {
    const studied = await bash(blocks[1], work, env);
    // The cache is filled by the project's own `npm ci` (what .ci/run does first): without it there is nothing to install offline.
    if (studied.code !== 0 && /ENOTCACHED/.test(studied.output)) {
      notCached = true;
      ctx.skip();
    }
    expect(studied.code, studied.output).toBe(0);
    expect(studied.output).toContain('scaledDotProductAttention is not implemented yet: edit student/index.ts');
    for (const gone of ['playwright-core', 'ajv', 'yaml', '@dodona']) expect(fs.existsSync(path.join(clone, 'node_modules', gone)), gone).toBe(false);
    installed = true;
  });

  it('in that install: npm run typecheck passes on the stubs, as does tsc on the project and student/ (what an editor checks)', async (ctx) => {
    needsInstall(ctx);
    const typecheck = await inClone('npm', ['run', 'typecheck']);
    expect(typecheck.code, typecheck.output).toBe(0);
    expect(typecheck.output.trim().split('\n').at(-1)).toMatch(/^typecheck: no type errors in student\/(; unchanged since the last check)?$/);
    for (const project of ['.', 'student']) {
      const { code, output } = await inClone(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project]);
      expect(output).toBe('');
      expect(code).toBe(0);
    }
  });

  it('in that install: npm run grade -- --html on the stubs: exit 0, total 0 of the visible points, no hidden case; the page where git ignores it', async (ctx) => {
    needsInstall(ctx);
    const { code, output } = await inClone('npm', ['run', 'grade', '--', '--html']);
    const page = path.relative(PROJECT_ROOT, path.join(PAGES_DIR, 'student.html'));
    expect(output).toContain(`wrote ${page}: open it in a browser`);
    expect(fs.existsSync(path.join(clone, page))).toBe(true);
    // A student who commits everything does not commit the page: the handout's .gitignore, and the project's, ignore it.
    for (const repository of [clone, PROJECT_ROOT]) expect(execFileSync('git', ['check-ignore', page], { cwd: repository, encoding: 'utf8' }).trim()).toBe(page);
    expect(output).toMatch(new RegExp(`Total: 0/${VISIBLE_MAX}\\b`));
    // The stubs really ran in a contained child.
    expect(output).toMatch(/softmax is not implemented yet: edit student\/index\.ts/);
    expect(output).not.toMatch(/crashed/);
    expect(output).not.toMatch(/_hidden\b/);
    expect(code).toBe(0);
  });

  it('steps 3 and 4: the student pushes a solution; the course is fetched and graded', async (ctx) => {
    needsInstall(ctx);
    const pushed = await bash(blocks[2], work, env);
    expect(pushed.code, pushed.output).toBe(0);
    const graded = await bash(blocks[3], PROJECT_ROOT, env);
    expect(graded.code, graded.output).toBe(0);
    const rows = csvRecords(fs.readFileSync(path.join(work, 'grades', 'grades.csv'), 'utf8'));
    expect(Object.fromEntries(rows.map((r) => [r.name, r.total]))).toEqual({ 'attention-ada': '14.5', 'attention-bo': '0' });
    expect(fs.existsSync(path.join(work, 'grades', 'report.html'))).toBe(true);
  });

  it('the handout\'s .github/workflows/classroom.yml, run on what the student pushed (the reference): exit 0, summary written, points re-posted as the only command', async (ctx) => {
    needsInstall(ctx);
    await workflowGrades(`${VISIBLE_MAX}/${VISIBLE_MAX}`, 'passed');
  });
});
