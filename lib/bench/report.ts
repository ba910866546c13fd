/** docs/benchmarks.md from one `npm run bench`: every figure with the command behind it and the machine. */
import { batchTable, type BatchResult } from './batch';
import { describeMachine, type Machine } from './measure';
import type { NumpyResult } from './numpy';
import { similaritySection, type SimilarityBench } from './similarity';
import { studentLoopTable, type StudentLoopResult } from './studentLoop';
import type { TensorResult } from './tensor';
import { typecheckSection, type TypecheckResult } from './typecheck';

/** The tensor module is to be within this factor of NumPy on the same work. */
export const NUMPY_GOAL = 5;

export interface BenchReport {
  machine: Machine;
  date: string;
  /** The command as run, e.g. `npm run bench -- --quick`. */
  command: string;
  /** 1-minute load averages at the start and the end of the run: above 0, other work shared the cores. */
  load: { start: number; end: number };
  studentLoop: StudentLoopResult;
  typecheck: TypecheckResult;
  batch: BatchResult;
  tensor: TensorResult;
  numpy: NumpyResult;
  similarity: SimilarityBench;
}

const g = (x: number) => x.toFixed(2);

/** Which BLAS NumPy loaded decides most of its speed; named in words a reader recognises. */
function describeBlas(libraries: readonly string[]): string {
  const all = libraries.join(', ');
  if (/openblas/i.test(all)) return `OpenBLAS (${all})`;
  if (/mkl/i.test(all)) return `Intel MKL (${all})`;
  if (libraries.length > 0 && libraries.every((lib) => /^lib(c?blas)\.so/.test(lib))) {
    return `the Netlib reference BLAS (${all}, Debian's libblas3: unoptimised, one thread)`;
  }
  return libraries.length > 0 ? all : 'not identified';
}

function tensorSection(t: TensorResult, numpy: NumpyResult): string[] {
  const rows = [
    `| \`lib/tensor.ts\`: \`Q.matmul(Kᵀ)\`; the reference's attention | ${g(t.tensor.matmulGflops)} | ${g(t.tensor.sdpaGflops)} |`,
    `| plain loops (\`lib/bench/kernels.ts\`, i-j-p matmul; per-query attention) | ${g(t.loops.matmulGflops)} | ${g(t.loops.sdpaGflops)} |`,
  ];
  const notes: string[] = [];
  if (numpy.available) {
    for (const run of numpy.runs) {
      rows.push(`| NumPy ${numpy.numpyVersion}, float32, ${run.threads === 1 ? 'one thread' : 'BLAS on all cores'} | ${g(run.matmulGflops)} | ${g(run.sdpaGflops)} |`);
    }
    const best = {
      matmul: Math.max(...numpy.runs.map((r) => r.matmulGflops)),
      sdpa: Math.max(...numpy.runs.map((r) => r.sdpaGflops)),
    };
    const ratios = { matmul: best.matmul / t.tensor.matmulGflops, sdpa: best.sdpa / t.tensor.sdpaGflops };
    const met = ratios.matmul <= NUMPY_GOAL && ratios.sdpa <= NUMPY_GOAL;
    notes.push(
      `**Goal: within ${NUMPY_GOAL}× of NumPy.** Measured, NumPy's best over the tensor module: ` +
        `**${ratios.matmul.toFixed(1)}×** on batched matmul and **${ratios.sdpa.toFixed(1)}×** on attention: ` +
        `${met ? 'met against this NumPy' : 'not met'}.`,
      '',
      `NumPy here is NumPy ${numpy.numpyVersion} on Python ${numpy.pythonVersion} with ${describeBlas(numpy.blas)}. The ratio is against ` +
        'that NumPy: with an optimised BLAS (OpenBLAS in the pip wheels, MKL) NumPy\'s matmul runs many times faster, ' +
        'so the same goal would be harder to meet on a machine that has one.',
    );
  } else {
    notes.push(`**Goal: within ${NUMPY_GOAL}× of NumPy.** Not measured: ${numpy.reason}.`);
  }
  const shape = `[${t.shape.join(', ')}]`;
  return [
    `Q, K and V of shape ${shape} ([batch, heads, sequence, d_head]), float32, fixed seeds. GFLOP/s count ` +
      `2·n·m·k per matrix product and only the two products for attention (4·b·h·n²·d = ${(t.sdpaFlops / 1e6).toFixed(0)} ` +
      `MFLOP; matmul ${(t.matmulFlops / 1e6).toFixed(0)} MFLOP), so every row is charged for the same work. ` +
      `Median of ${t.reps} runs after one warm-up run.`,
    '',
    '| implementation | batched matmul, GFLOP/s | attention, GFLOP/s |',
    '| --- | --- | --- |',
    ...rows,
    '',
    ...notes,
    '',
    'Node runs the tensor module on one thread; its matmul accumulates in float64 (inputs widened once), ' +
      'while NumPy multiplies float32 in float32.',
  ];
}

export function benchmarksMarkdown(r: BenchReport): string {
  const lines = [
    '# Benchmarks',
    '',
    `Measured by \`${r.command}\` on ${r.date}, in one run, on one machine: ${describeMachine(r.machine)}.`,
    `Load average (1 min) ${r.load.start.toFixed(2)} when it started and ${r.load.end.toFixed(2)} when it ended: ` +
      'other processes on the machine share the cores with the measurements, the batch figures most.',
    'This file is written by that command: rerun it rather than editing figures by hand.',
    '',
    '## The student loop',
    '',
    'Command timed: `vitest run -t scaled_dot_product` with `ATTENTION_SUBMISSION=reference` (what ' +
      '`npm test -- -t scaled_dot_product` runs, without npm\'s own start), alternating with `vitest run` of one empty ' +
      'test in an empty folder with the default config. Also on its own: `npm run bench:student-loop`.',
    '',
    ...studentLoopTable(r.studentLoop),
    '',
    ...typecheckSection(r.typecheck),
    '',
    '## Batch grading',
    '',
    `${r.batch.graderCount} typical submissions (the catalogue's correct and buggy ones, round robin), ${r.batch.jobs} jobs ` +
      'on each side; the grader is timed on its second run into the same `--out` (child runtime and module caches warm, and the ' +
      'submissions\' transpiled code and type checks in the folder\'s work cache, as on any rerun); its first run is shown too. ' +
      'Also on its own: `npm run bench:batch`.',
    '',
    ...batchTable(r.batch),
    '',
    '## The tensor module',
    '',
    ...tensorSection(r.tensor, r.numpy),
    '',
    ...similaritySection(r.similarity),
    '',
  ];
  return lines.join('\n');
}
