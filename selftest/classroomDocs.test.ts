/**
 * docs/classroom.md, run as written: every block marked `sh selftest`, in order, with local
 * folders standing in for GitHub (a bare template repository, a course's student repositories
 * cloned from it as Classroom does, SUBMISSIONS_BASE_URL for fetch-submissions). What happens in
 * GitHub's web pages is between the blocks, done here by the test itself.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../lib/paths';
import { csvRecords } from '../lib/report/exports';

const DOC = path.join(PROJECT_ROOT, 'docs', 'classroom.md');

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

  it('runs as written: handout → template → a student repository per student → pushes → fetched and graded', async (ctx) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'classroom-'));
    fs.chmodSync(root, 0o755);
    const work = path.join(root, 'work');
    const github = path.join(root, 'github');
    const course = path.join(github, 'your-course');
    fs.mkdirSync(work);
    fs.mkdirSync(course, { recursive: true });
    const template = path.join(course, 'attention-template.git');
    execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', template]);
    const env: NodeJS.ProcessEnv = {
      ...process.env, WORK: work, TEMPLATE_URL: template, COURSE: course, SUBMISSIONS_BASE_URL: `${github}${path.sep}`,
      SOLUTION: path.join(PROJECT_ROOT, 'reference', 'index.ts'), GIT_TERMINAL_PROMPT: '0',
    };
    delete env.ATTENTION_SUBMISSION;
    delete env.GITHUB_ACTIONS;
    delete env.GITHUB_STEP_SUMMARY;
    const [handout, student, push, grade] = runnableBlocks(fs.readFileSync(DOC, 'utf8'));

    const released = await bash(handout, PROJECT_ROOT, env);
    expect(released.code, released.output).toBe(0);
    expect(execFileSync('git', ['--git-dir', template, 'ls-tree', '-r', '--name-only', 'main'], { encoding: 'utf8' })).toContain('.github/workflows/classroom.yml');
    // GitHub Classroom: a repository per student, made from the template.
    for (const name of ['ada', 'bo']) execFileSync('git', ['clone', '--quiet', '--bare', template, path.join(course, `attention-${name}.git`)]);

    const studied = await bash(student, work, env);
    if (studied.code !== 0 && /ENOTCACHED/.test(studied.output)) ctx.skip(); // no npm cache to install from offline
    expect(studied.code, studied.output).toBe(0);
    expect(studied.output).toContain('scaledDotProductAttention is not implemented yet: edit student/index.ts');
    const pushed = await bash(push, work, env);
    expect(pushed.code, pushed.output).toBe(0);

    const graded = await bash(grade, PROJECT_ROOT, env);
    expect(graded.code, graded.output).toBe(0);
    const rows = csvRecords(fs.readFileSync(path.join(work, 'grades', 'grades.csv'), 'utf8'));
    expect(Object.fromEntries(rows.map((r) => [r.name, r.total]))).toEqual({ 'attention-ada': '14.5', 'attention-bo': '0' });
    expect(fs.existsSync(path.join(work, 'grades', 'report.html'))).toBe(true);
    fs.rmSync(root, { recursive: true, force: true });
  });
});
