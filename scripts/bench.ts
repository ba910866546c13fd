/**
 * npm run bench [-- --quick] [--suite] [--out FILE]: every benchmark in one run on this machine (the
 * student loop, the student's type check, batch grading, the tensor module against plain loops and
 * NumPy, code similarity), written to docs/benchmarks.md (or FILE). --quick takes fewer runs and
 * submissions: for trying the bench, not for figures to keep. --suite also times `.ci/run` in a fresh
 * clone, on its own and beside two busy loops (about twice the suite's time; npm run bench:suite).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { measureBatch } from '../lib/bench/batch';
import { machine } from '../lib/bench/measure';
import { measureNumpy } from '../lib/bench/numpy';
import { measureSimilarity } from '../lib/bench/similarity';
import { SECTION as AUDIT_SECTION } from '../selftest/audit/report';
import { measureSuite, SUITE_HEADING, suiteSection } from '../lib/bench/suite';
import { benchmarksMarkdown } from '../lib/bench/report';
import { measureStudentLoop } from '../lib/bench/studentLoop';
import { BENCH_SHAPE, measureTensor } from '../lib/bench/tensor';
import { measureTypecheck } from '../lib/bench/typecheck';
import { VARIANTS_HEADING } from '../lib/bench/variants';
import { PROJECT_ROOT } from '../lib/paths';
import { scaledDotProductAttention } from '../reference';
import { layOutCatalogue } from '../selftest/benchSubmissions';
import { ASSIGNMENT } from '../tests/assignment';

const USAGE = 'npm run bench -- [--quick] [--suite] [--out FILE]';
// The log of figures the README's speed table held before (written by hand, appended to) is kept too.
const KEPT_SECTIONS = ['## The batch report in a browser', AUDIT_SECTION, VARIANTS_HEADING, "## A submission's budget", SUITE_HEADING, '## Earlier runs'];
const flags = parseFlags(process.argv.slice(2), { quick: 'boolean', suite: 'boolean', out: 'string' }, USAGE);
const quick = Boolean(flags.quick);
const sizes = quick
  ? { loopRuns: 3, submissions: 24, vitestSubmissions: 6, reps: 3, similar: 100 }
  : { loopRuns: 7, submissions: 120, vitestSubmissions: 20, reps: 7, similar: 1000 };
const shownOut = flags.out ?? 'docs/benchmarks.md';
const out = flags.out ? path.resolve(flags.out) : path.join(PROJECT_ROOT, 'docs', 'benchmarks.md');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));

async function main(): Promise<void> {
  const loadStart = os.loadavg()[0];
  console.log('bench: the student loop…');
  const studentLoop = measureStudentLoop(sizes.loopRuns);
  console.log("bench: the student's type check…");
  const typecheck = measureTypecheck(sizes.loopRuns);
  console.log('bench: batch grading…');
  const submissions = path.join(work, 'submissions');
  layOutCatalogue(submissions, sizes.submissions);
  const batch = await measureBatch({ assignment: ASSIGNMENT,
    submissions, out: path.join(work, 'out'), jobs: os.availableParallelism(), vitestCount: sizes.vitestSubmissions,
  });
  console.log('bench: the tensor module and NumPy…');
  const tensor = measureTensor(scaledDotProductAttention, sizes.reps);
  const numpy = measureNumpy(BENCH_SHAPE, sizes.reps);
  console.log('bench: code similarity…');
  const similar = path.join(work, 'similar');
  layOutCatalogue(similar, sizes.similar);
  const similarity = await measureSimilarity(similar, sizes.similar);
  const suite: string[] = [];
  if (flags.suite) {
    const { runs, commit } = await measureSuite(work, true, (line) => console.log(`bench: ${line}`));
    suite.push(...suiteSection(runs, `(Commit ${commit}, in this run.)`));
  }
  const markdown = benchmarksMarkdown({
    machine: machine(),
    date: new Date().toISOString().slice(0, 10),
    command: `npm run bench${quick ? ' -- --quick' : ''}`,
    load: { start: loadStart, end: os.loadavg()[0] },
    studentLoop, typecheck, batch, tensor, numpy, similarity,
  });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  // Sections other commands write (the browser self-test's, npm run audit:diagnosis's, npm run
  // bench:budget's, and npm run bench:variants's: 1,000 draws, too long for this run): carried over.
  const previous = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
  const kept = previous.split(/\n(?=## )/)
    .filter((s) => KEPT_SECTIONS.some((title) => s.startsWith(title)) && !(suite.length && s.startsWith(SUITE_HEADING)))
    .map((s) => s.trimEnd());
  if (suite.length) kept.push(suite.join('\n'));
  fs.writeFileSync(out, kept.length ? `${[markdown.trimEnd(), ...kept].join('\n\n')}\n` : markdown);
  console.log(markdown);
  console.log(`bench: wrote ${shownOut}`);
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => fs.rmSync(work, { recursive: true, force: true }));
