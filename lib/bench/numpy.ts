/**
 * NumPy on the same work as tensor.ts, when this machine has it: `/usr/bin/python3`, then
 * `python3` on PATH, whichever imports numpy first. Measured twice: with NumPy's BLAS on every core
 * (what a NumPy user gets) and pinned to one thread (like Node, which runs the tensor module on one).
 * The Python below only times; the FLOP count and every decision stay here.
 */
import { spawnSync } from 'node:child_process';
import { flops, type Rates } from './tensor';

const CANDIDATES = ['/usr/bin/python3', 'python3'];

const SCRIPT = `
import json, sys, time
import numpy as np
b, h, n, d, reps = (int(x) for x in sys.argv[1:6])
rng = np.random.default_rng(0)
q, k, v = (rng.standard_normal((b, h, n, d), dtype=np.float32) for _ in range(3))
kt = np.ascontiguousarray(k.swapaxes(-1, -2))
scale = np.float32(1 / np.sqrt(d))
def sdpa():
    s = (q @ k.swapaxes(-1, -2)) * scale
    s -= s.max(axis=-1, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=-1, keepdims=True)
    return s @ v
def seconds(run):
    run()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]
try:
    blas = sorted({line.split()[-1].rsplit("/", 1)[-1] for line in open("/proc/self/maps") if "blas" in line})
except OSError:
    blas = []
print(json.dumps({"numpy": np.__version__, "python": sys.version.split()[0], "blas": blas,
                  "matmul": seconds(lambda: q @ kt), "sdpa": seconds(sdpa)}))
`;

export interface NumpyRun extends Rates {
  threads: 'all cores' | 1;
}

export type NumpyResult =
  | {
      available: true;
      python: string;
      pythonVersion: string;
      numpyVersion: string;
      /** The BLAS libraries NumPy loaded (Linux), which decide its matmul speed; empty when unknown. */
      blas: string[];
      runs: NumpyRun[];
    }
  | { available: false; reason: string };

const ONE_THREAD = { OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };

function findPython(): string | undefined {
  return CANDIDATES.find((python) => spawnSync(python, ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0);
}

export function measureNumpy(shape: readonly number[], reps: number): NumpyResult {
  const python = findPython();
  if (!python) return { available: false, reason: `no Python with numpy (tried ${CANDIDATES.join(', ')})` };
  const count = flops(shape);
  const runs: NumpyRun[] = [];
  let versions = { python: '', numpy: '', blas: [] as string[] };
  for (const threads of ['all cores', 1] as const) {
    const env = threads === 1 ? { ...process.env, ...ONE_THREAD } : process.env;
    const run = spawnSync(python, ['-c', SCRIPT, ...shape.map(String), String(reps)], { env, encoding: 'utf8' });
    if (run.status !== 0) return { available: false, reason: `${python} failed: ${run.stderr.trim().split('\n').at(-1)}` };
    const timed = JSON.parse(run.stdout) as { numpy: string; python: string; blas: string[]; matmul: number; sdpa: number };
    versions = timed;
    runs.push({ threads, matmulGflops: count.matmul / timed.matmul / 1e9, sdpaGflops: count.sdpa / timed.sdpa / 1e9 });
  }
  return { available: true, python, pythonVersion: versions.python, numpyVersion: versions.numpy, blas: versions.blas, runs };
}
