/**
 * The graded suite (vitest.config.mts) run once over many submissions: one vitest project per
 * submission, each with ATTENTION_SUBMISSION set as `ATTENTION_SUBMISSION=dir npm test` sets it,
 * and a report per project in the JSON reporter's own shape. One vitest start for a whole set of
 * submissions instead of one each (selftest/suiteRuns.ts).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import type { Reporter, TestModule } from 'vitest/node';
import type { SuiteReport } from './suiteRuns.js';

/** Written by suiteRuns.ts: the submissions (project name to folder) and where the reports go. */
const { submissions, report } = JSON.parse(fs.readFileSync(process.env.ATTENTION_SELFTEST_RUNS!, 'utf8')) as {
  submissions: Record<string, string>;
  report: string;
};

/** Each project's modules as the JSON reporter writes a whole run's (the fields the self-tests read). */
class PerProject implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const runs: Record<string, SuiteReport> = {};
    for (const name of Object.keys(submissions)) runs[name] = { success: false, numFailedTestSuites: 0, testResults: [] };
    for (const module of modules) {
      const run = runs[module.project.name];
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

const graded = fileURLToPath(new URL('../vitest.config.mts', import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    reporters: [new PerProject()],
    projects: Object.entries(submissions).map(([name, dir]) => ({ extends: graded, test: { name, env: { ATTENTION_SUBMISSION: dir } } })),
  },
});
