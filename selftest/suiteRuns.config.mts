/**
 * The graded suite (vitest.config.mts) run once over many submissions, in one project: for each
 * submission a test file of its own (written by suiteRuns.ts) resets the module registry, sets
 * ATTENTION_SUBMISSION to its folder, as `ATTENTION_SUBMISSION=dir npm test` sets it, then imports
 * the graded suite's files: every module (the graded suite's, the adapters', the submission's, the
 * harness's) is evaluated afresh for each submission, so no module state carries from one to the
 * next. Each submission's report has the JSON reporter's shape for a run of its own.
 *
 * One project rather than one per submission (a project costs vitest a configuration, a server and
 * its own transforms, about 0.6 s of CPU each), and files not isolated in workers of their own: a
 * fresh worker compiles every module again, about 0.45 s of CPU a submission, where one worker's
 * V8 keeps the compiled code. What is shared is the worker's globals: the catalogue's mistakes
 * change none, and a submission that did would make the two paths disagree, which fails loudly.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import type { Reporter, TestModule } from 'vitest/node';
import graded from '../vitest.config.mjs';
import type { SuiteReport } from './suiteRuns.js';

/** Written by suiteRuns.ts: each submission's test file (absolute) to its name, where the files are, and where the reports go. */
const { files, dir, report } = JSON.parse(fs.readFileSync(process.env.ATTENTION_SELFTEST_RUNS!, 'utf8')) as {
  files: Record<string, string>;
  dir: string;
  report: string;
};

/** Each submission's module as the JSON reporter writes a whole run's (the fields the self-tests read). */
class PerSubmission implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const runs: Record<string, SuiteReport> = {};
    for (const name of Object.values(files)) runs[name] = { success: false, numFailedTestSuites: 0, testResults: [] };
    for (const module of modules) {
      const run = runs[files[module.moduleId]];
      if (!run) continue;
      const tests = [...module.children.allTests()];
      const failed = module.state() === 'failed' || tests.some((t) => t.result().state === 'failed');
      if (module.state() === 'failed') run.numFailedTestSuites++;
      run.testResults.push({
        name: module.moduleId,
        status: failed ? 'failed' : 'passed',
        message: module.errors()[0]?.message ?? '',
        assertionResults: tests.map((t) => {
          const result = t.result();
          return {
            title: t.name,
            status: result.state,
            failureMessages: result.errors?.map((e) => e.stack || e.message) ?? [],
            meta: t.meta() as { notes?: string[] },
          };
        }),
      });
    }
    for (const run of Object.values(runs)) run.success = run.testResults.length > 0 && run.testResults.every((f) => f.status === 'passed');
    fs.writeFileSync(report, JSON.stringify(runs));
  }
}

// The graded suite's configuration as it is (its plugin, aliases, pool, timeouts), but for which files it runs.
export default defineConfig({
  ...graded,
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: { ...graded.test, dir, include: ['*.test.ts'], isolate: false, reporters: [new PerSubmission()] },
});
