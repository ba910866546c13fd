/**
 * classroom/grade-course.yml, the workflow that grades a course on N machines, read as GitHub reads
 * it (YAML) and its jobs' commands run here as a runner would run them, in order: plan the shards,
 * clone the submissions from a list of repositories (local bare repositories stand in for GitHub),
 * hand them to the grading jobs through their artifact as GitHub would (attacks/artifact.ts), grade
 * every shard as root (`sudo` is a shim that runs the command as the current user, root here), hand
 * each shard's output over as its artifact would arrive, and merge. The merged gradebook must hold
 * every student, graded with the workflow's options (that a merge of shards is the gradebook a single
 * machine writes is selftest/grader/shards.test.ts, and through the command line
 * selftest/secondAssignment.test.ts). Among the students, repositories whose student/index.ts links to
 * the reference or to a classmate's, one with a submodule, and one past the fetch's cap on files
 * (node_modules committed): none may earn a point, and everyone else is graded (one correct
 * solution, one mistake, one crash, one empty: every catalogued solution is graded by
 * selftest/grader/verdicts.test.ts, so a second of a kind here would grade the same thing). Expressions
 * (`${{ … }}`) are replaced with the values GitHub would give; one this test does not know fails it.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../lib/paths';
import { materialize, tempDir } from './grader/materialize';
import { csvRecords } from '../lib/report/exports';
import { downloadArtifact, uploadArtifact, type UploadOptions } from './attacks/artifact';
import { FETCH_LIMITS } from '../lib/batch/fetch';

interface Step {
  name: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string | number | boolean>;
}
interface Job {
  needs?: string | string[];
  strategy?: { matrix: Record<string, unknown> };
  outputs?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  name: string;
  on: { workflow_dispatch: { inputs: Record<string, { default?: string | boolean }> } };
  permissions: Record<string, string>;
  env: Record<string, string>;
  jobs: Record<string, Job>;
}

const FILE = 'classroom/grade-course.yml';
const text = fs.readFileSync(path.join(PROJECT_ROOT, FILE), 'utf8');
const workflow = parse(text) as Workflow;
const SHARDS = 2;
const STUDENTS: Record<string, string | undefined> = {
  'attention-ada': path.join(PROJECT_ROOT, 'reference', 'index.ts'),
  'attention-bo': path.join(__dirname, 'catalogue', 'bugs', 'scale_missing.ts'),
  'attention-di': path.join(__dirname, 'grader', 'misbehaving', 'exit_at_import.ts'),
  'attention-fay': undefined, // a repository without student/index.ts
};
/** Repositories whose entry is a link (to the reference, through the fetch folder; to a classmate), that hold a submodule, or more files than a fetch takes. */
const LINKED: Record<string, (work: string) => void> = {
  'attention-link-ref': (work) => fs.symlinkSync('../../../reference/index.ts', path.join(work, 'student', 'index.ts')),
  'attention-link-mate': (work) => fs.symlinkSync('../../attention-ada/student/index.ts', path.join(work, 'student', 'index.ts')),
  'attention-submodule': (work) => {
    fs.copyFileSync(String(STUDENTS['attention-ada']), path.join(work, 'student', 'index.ts'));
    // A repository inside: `git add` records it as a gitlink, as `git submodule add` does.
    const vendor = path.join(work, 'student', 'vendor');
    fs.mkdirSync(vendor);
    fs.writeFileSync(path.join(vendor, 'index.ts'), 'export {};\n');
    execFileSync('git', ['init', '--quiet'], { cwd: vendor });
    execFileSync('git', ['add', '-A'], { cwd: vendor });
    execFileSync('git', ['-c', 'user.name=Student', '-c', 'user.email=student@example.org', 'commit', '--quiet', '-m', 'vendor'], { cwd: vendor });
  },
  'attention-modules': (work) => {
    fs.copyFileSync(String(STUDENTS['attention-ada']), path.join(work, 'student', 'index.ts'));
    const modules = path.join(work, 'node_modules', 'left-pad');
    fs.mkdirSync(modules, { recursive: true });
    for (let i = 0; i < FETCH_LIMITS.entries; i++) fs.writeFileSync(path.join(modules, `f${i}.js`), '');
  },
};
const EVERYONE = [...Object.keys(STUDENTS), ...Object.keys(LINKED)];

const root = tempDir('course-workflow');
const checkout = path.join(root, 'checkout');
const step = (job: string, name: string) => {
  const found = workflow.jobs[job].steps.find((s) => s.name === name);
  if (!found) throw new Error(`${FILE}: job ${job} has no step "${name}"`);
  return found;
};

/** The value GitHub gives each expression this workflow uses, for one matrix job. */
function expand(value: string, shard?: number): string {
  const known: Record<string, string> = {
    'inputs.shards': String(SHARDS),
    "inputs.hidden && '--hidden' || ''": '--hidden',
    'inputs.repositories': 'classroom-repositories.txt',
    'inputs.deadline': '',
    "inputs.carry-forward && '--carry-forward' || ''": '',
    "inputs.late-policy != '' && format('--late-policy {0}', inputs.late-policy) || ''": '',
    'secrets.SUBMISSIONS_TOKEN': '',
    'strategy.job-total': String(SHARDS),
    ...(shard === undefined ? {} : { 'matrix.shard': String(shard) }),
  };
  return value.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => {
    if (!(expr in known)) throw new Error(`${FILE}: the self-test does not know the value of \${{ ${expr} }}`);
    return known[expr];
  });
}

/** A step's `run` as a runner runs it: bash --noprofile --norc -eo pipefail, the workflow's and the step's env expanded. */
function run(s: Step, env: Record<string, string>, shard?: number): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = path.join(root, `step-${Math.random().toString(36).slice(2)}.sh`);
  fs.writeFileSync(script, s.run!);
  const expanded = Object.fromEntries(Object.entries({ ...workflow.env, ...s.env }).map(([k, v]) => [k, expand(v, shard)]));
  const fullEnv: NodeJS.ProcessEnv = {
    ...process.env, ...expanded, ...env, GITHUB_WORKSPACE: checkout,
    PATH: `${path.join(root, 'bin')}${path.delimiter}${process.env.PATH}`,
  };
  delete fullEnv.GITHUB_ACTIONS;
  return new Promise((resolve) => {
    execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd: checkout, env: fullEnv, encoding: 'utf8', maxBuffer: 16 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
  });
}

/** A bare repository `<root>/github/<slug>.git` holding student/ as a student's repository would. */
function studentRepository(slug: string, solution: string | undefined, link?: (work: string) => void): void {
  const work = path.join(root, 'work', slug);
  if (solution) materialize(solution, work, 'student');
  else fs.mkdirSync(path.join(work, 'student'), { recursive: true });
  fs.writeFileSync(path.join(work, 'README.md'), `# ${slug}\n`);
  const git = (args: string[], cwd = work) => execFileSync('git', args, { cwd, stdio: 'ignore' });
  git(['init', '--quiet']);
  link?.(work);
  git(['add', '-A']);
  git(['-c', 'user.name=Student', '-c', 'user.email=student@example.org', 'commit', '--quiet', '-m', 'solution']);
  git(['clone', '--quiet', '--bare', work, path.join(root, 'github', `${slug}.git`)], root);
}

beforeAll(() => {
  fs.chmodSync(root, 0o755);
  fs.mkdirSync(checkout);
  // The grader's checkout: the project's own files, linked.
  for (const entry of ['package.json', 'package-lock.json', 'tsconfig.json', 'node_modules', 'lib', 'scripts', 'tests', 'adapters', 'fixtures', 'reference']) {
    fs.symlinkSync(path.join(PROJECT_ROOT, entry), path.join(checkout, entry));
  }
  fs.mkdirSync(path.join(root, 'bin'));
  fs.writeFileSync(path.join(root, 'bin', 'sudo'), '#!/bin/sh\n[ "$1" = -E ] && shift\nexec "$@"\n', { mode: 0o755 });
  for (const [name, solution] of Object.entries(STUDENTS)) studentRepository(`course-org/${name}`, solution);
  for (const [name, link] of Object.entries(LINKED)) studentRepository(`course-org/${name}`, undefined, link);
  fs.writeFileSync(path.join(checkout, 'classroom-repositories.txt'),
    ['# the course', ...EVERYONE.map((name) => `course-org/${name}`), ''].join('\n'));
});

// Its repositories hold a fetch's cap of files (attention-modules): each run would leave them behind.
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe(`${FILE}: as GitHub reads it`, () => {
  it('starts by hand with the number of shards; fetch, a matrix of shard jobs, then the merge', () => {
    expect(workflow.on.workflow_dispatch.inputs.shards.default).toBe('4');
    expect(Object.keys(workflow.jobs)).toEqual(['submissions', 'grade', 'merge']);
    expect(workflow.jobs.grade.needs).toBe('submissions');
    expect(workflow.jobs.grade.strategy?.matrix.shard).toBe('${{ fromJSON(needs.submissions.outputs.shards) }}');
    expect(workflow.jobs.submissions.outputs?.shards).toBe('${{ steps.plan.outputs.shards }}');
    expect(workflow.jobs.merge.needs).toBe('grade');
    expect(step('grade', 'Keep the shard\'s output').with?.name).toBe('shard-${{ matrix.shard }}');
    expect(step('merge', 'Fetch the shards\' outputs').with?.pattern).toBe('shard-*');
    expect(step('merge', 'Keep the gradebook and the report').with?.path).toBe('gradebook');
  });

  it('pins every action by its version, reads only, and uses no secret but the one that clones', () => {
    const uses = Object.values(workflow.jobs).flatMap((job) => job.steps.flatMap((s) => (s.uses ? [s.uses] : [])));
    expect(uses.length).toBeGreaterThan(0);
    for (const action of uses) expect(action).toMatch(/^actions\/[a-z-]+@v\d+\.\d+\.\d+$/);
    expect(Object.values(workflow.permissions).every((p) => p === 'read')).toBe(true);
    expect(text.match(/secrets\.\w+/g)).toEqual(['secrets.SUBMISSIONS_TOKEN']);
    expect(step('submissions', 'Clone them from the list of repositories').env?.SUBMISSIONS_TOKEN).toBe('${{ secrets.SUBMISSIONS_TOKEN }}');
    // Inputs reach the scripts through env only.
    for (const job of Object.values(workflow.jobs)) for (const s of job.steps) expect(s.run ?? '', s.name).not.toMatch(/\$\{\{/);
  });

  it('grades as root, with the containment the grader applies as root', () => {
    expect(step('grade', 'Grade').run).toMatch(/^sudo -E env "PATH=\$PATH" npm run grade -- --submissions submissions --out shard-out --shard "\$SHARD"/);
  });
});

describe(`${FILE}: its commands, run here`, () => {
  let shards: number[];

  it('plans one job per shard, and refuses a count that is not one', async () => {
    const output = path.join(root, 'github-output');
    fs.writeFileSync(output, '');
    const plan = step('submissions', 'Plan the shards');
    const planned = await run(plan, { GITHUB_OUTPUT: output });
    expect(planned.code, planned.stderr).toBe(0);
    expect(fs.readFileSync(output, 'utf8')).toBe('shards=[1,2]\n');
    shards = JSON.parse(fs.readFileSync(output, 'utf8').split('=')[1]) as number[];
    for (const bad of ['0', 'three', '1000']) {
      const refused = await run(plan, { GITHUB_OUTPUT: output, SHARDS: bad });
      expect(refused.code, bad).not.toBe(0);
      expect(refused.stderr).toContain(`shards must be a whole number from 1 to 256, got "${bad}"`);
    }
  });

  it('clones the submissions from the list of repositories; those it cannot take stop no one', async () => {
    const cloned = await run(step('submissions', 'Clone them from the list of repositories'), { SUBMISSIONS_BASE_URL: `${path.join(root, 'github')}${path.sep}` });
    // Four repositories are not fetched and the step is green: each is a row of its own when graded (a
    // repository that does not exist, the same way: selftest/grader/fetch.test.ts).
    expect(cloned.code, cloned.stderr).toBe(0);
    expect(cloned.stdout).toMatch(new RegExp(`fetched ${Object.keys(STUDENTS).length} of ${EVERYONE.length} submissions`));
    expect(fs.readdirSync(path.join(checkout, 'submissions')).filter((f) => !f.startsWith('.')).sort()).toEqual(Object.keys(STUDENTS).sort());
    // A link or a submodule is refused as the repository is cloned: a row saying which entry, no folder.
    expect(cloned.stderr).toMatch(/^fetch-submissions: not fetched: course-org\/attention-link-ref \("student\/index\.ts" is a symbolic link: .+\)$/m);
    expect(cloned.stderr).toMatch(/^fetch-submissions: not fetched: course-org\/attention-link-mate \("student\/index\.ts" is a symbolic link: .+\)$/m);
    expect(cloned.stderr).toMatch(/^fetch-submissions: not fetched: course-org\/attention-submodule \("student\/vendor" is a submodule .+\)$/m);
    // Past a bound of the fetch: refused from its tree, before a file of it is written.
    expect(cloned.stderr).toMatch(/^fetch-submissions: not fetched: course-org\/attention-modules \("node_modules\/left-pad\/f\d+\.js" takes the repository past 5000 files and folders: .+\)$/m);
    expect(fs.existsSync(path.join(checkout, 'submissions', 'attention-ada', 'student', 'index.ts'))).toBe(true);
    expect(fs.existsSync(path.join(checkout, 'submissions', 'attention-ada', '.git'))).toBe(false);
  });

  it('hands the submissions to the grading jobs as one tar, through their artifact as GitHub carries it', async () => {
    const packed = await run(step('submissions', 'Pack them as they are'), {});
    expect(packed.code, packed.stderr).toBe(0);
    const stored = uploadArtifact(checkout, step('submissions', 'Keep them for the graders').with as unknown as UploadOptions);
    expect([...stored.keys()]).toEqual(['submissions.tar']);
    // The grading machine: a checkout of its own, without the fetch's folder.
    fs.renameSync(path.join(checkout, 'submissions'), path.join(root, 'fetched-on-the-first-machine'));
    fs.rmSync(path.join(checkout, 'submissions.tar'));
    downloadArtifact(stored, path.join(checkout, String(step('grade', 'Fetch the submissions').with?.path)));
    const unpacked = await run(step('grade', 'Unpack the submissions'), {});
    expect(unpacked.code, unpacked.stderr).toBe(0);
    expect(fs.readdirSync(path.join(checkout, 'submissions')).sort()).toEqual(fs.readdirSync(path.join(root, 'fetched-on-the-first-machine')).sort());
  });

  it('grades every shard and merges them: a row for every student, with the workflow\'s options; a point only for a correct solution of the student\'s own', async () => {
    expect(shards).toEqual([1, 2]);
    const reach = await run(step('grade', 'Let the contained child reach the checkout'), {});
    expect(reach.code, reach.stderr).toBe(0);
    for (const shard of shards) {
      const graded = await run(step('grade', 'Grade'), {}, shard);
      expect(graded.code, graded.stderr).toBe(0);
      expect(graded.stdout).toContain(`shard ${shard}/${SHARDS}: `);
      // As upload-artifact then download-artifact with a pattern hand it over: shards/<artifact name>/.
      const artifact = expand(String(step('grade', 'Keep the shard\'s output').with?.name), shard);
      fs.mkdirSync(path.join(checkout, 'shards'), { recursive: true });
      fs.renameSync(path.join(checkout, String(step('grade', 'Keep the shard\'s output').with?.path)), path.join(checkout, 'shards', artifact));
    }
    const summary = path.join(root, 'step-summary.md');
    fs.writeFileSync(summary, '');
    const merged = await run(step('merge', 'Merge'), { GITHUB_STEP_SUMMARY: summary });
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain(`merged ${SHARDS} shard output(s): ${EVERYONE.length} submissions`);
    expect(fs.readFileSync(summary, 'utf8')).toMatch(new RegExp(`^### Gradebook: ${EVERYONE.length} submissions\n\nPoints out of 14\\.5: `));

    const totals = csvRecords(fs.readFileSync(path.join(checkout, 'gradebook', 'grades.csv'), 'utf8')).map((r) => [r.name, r.total]);
    expect(totals.map(([name]) => name).sort()).toEqual([...EVERYONE].sort());
    // 14.5 is every point, hidden cases included: the shards were graded with --hidden, as the workflow's input says.
    expect(Object.fromEntries(totals)).toMatchObject({
      'attention-ada': '14.5', 'attention-di': '0', 'attention-fay': '0',
      'attention-link-ref': '0', 'attention-link-mate': '0', 'attention-submodule': '0', 'attention-modules': '0',
    });
    expect(Number(Object.fromEntries(totals)['attention-bo'])).toBeLessThan(14.5);
    const long = csvRecords(fs.readFileSync(path.join(checkout, 'gradebook', 'grades-long.csv'), 'utf8'));
    expect(new Set(long.map((r) => r.submission))).toEqual(new Set(EVERYONE));
    expect(fs.readFileSync(path.join(checkout, 'gradebook', 'report.html'), 'utf8')).toContain(`${EVERYONE.length} submissions`);
  });
});
