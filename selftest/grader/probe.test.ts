/**
 * The probes (lib/grading/heatmaps.ts, lib/grading/diagnoseInChild.ts): extra calls per failed case
 * after grading, e.g. with V the identity. They must leave every verdict as it was, show what the
 * submission's probabilities are, and turn a probe that throws or hangs into a sentence instead of
 * a heatmap.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../lib/model/fixtures';
import { submissionPage } from '../../lib/report/submissionPage';
import { visibleCases } from '../../tests/cases';
import * as oracle from '../oracle';
import { grade, stable } from './harness';
import { materialize, tempDir } from './materialize';
import { ASSIGNMENT } from '../../tests/assignment';

const work = tempDir('probe');
const failedAttention = (result: Awaited<ReturnType<typeof grade>>) =>
  result.cases.filter((c) => c.fn === 'scaled_dot_product_attention' && (c.status === 'failed' || c.status === 'error')).map((c) => c.name);
const withoutHeatmaps = ({ heatmaps: _, ...rest }: Awaited<ReturnType<typeof grade>>) => stable(rest);

describe('probes for the heatmaps', () => {
  it('scale missing: the same verdicts, and probabilities that are softmax(Q Kᵀ) per failed case', async () => {
    const dir = materialize(path.join(__dirname, '..', 'catalogue', 'bugs', 'scale_missing.ts'), work);
    const plain = await grade(dir, 'scale_missing');
    const probed = await grade(dir, 'scale_missing', { heatmaps: true });
    expect(plain.heatmaps).toBeUndefined();
    expect(withoutHeatmaps(probed)).toEqual(stable(plain));
    expect([...probed.heatmaps!.keys()]).toEqual(failedAttention(plain));
    expect(probed.heatmaps!.size).toBe(visibleCases('scaled_dot_product_attention').length);
    for (const [name, { actual, expected, problem, batchIndex }] of probed.heatmaps!) {
      expect(problem, name).toBeUndefined();
      expect([actual!.rows, actual!.cols], name).toEqual([expected!.rows, expected!.cols]);
      // softmax(Q Kᵀ) is softmax(Q' Kᵀ/√d_k) with Q' = √d_k·Q: what this submission computes.
      const { q, k, mask } = loadFixture(visibleCases().find((c) => c.name === name)!.fixture).inputs;
      const keys = k.shape[k.ndim - 2];
      const identity = { shape: [...k.shape.slice(0, -2), keys, keys], data: Float64Array.from({ length: k.size / k.shape[k.ndim - 1] * keys }, (_, i) => Number(i % keys === Math.floor(i / keys) % keys)) };
      const unscaled = oracle.scaledDotProductAttention({ shape: q.shape, data: q.data.map((x) => x * Math.sqrt(q.shape[q.ndim - 1])) }, k, identity, mask);
      const entry = batchIndex.reduce((acc, i, d) => acc * q.shape[d] + i, 0);
      const worst = Math.max(...Array.from(actual!.data, (x, i) => Math.abs(x - unscaled.data[entry * actual!.data.length + i])));
      expect(worst, name).toBeLessThan(1e-5);
    }
  });

  it('a probe that throws or hangs costs nothing but its heatmap, and the page says why', async () => {
    const dir = materialize(path.join(__dirname, 'misbehaving', 'hostile_to_probes.ts'), work);
    const options = { timeoutMs: 700 };
    const plain = await grade(dir, 'hostile_to_probes', options);
    const probed = await grade(dir, 'hostile_to_probes', { ...options, heatmaps: true });
    expect(withoutHeatmaps(probed)).toEqual(stable(plain));
    expect(plain.cases.find((c) => c.name === 'test_scaled_dot_product_attention_probabilities')?.status).toBe('timeout');
    const problems = [...probed.heatmaps!.values()].map((h) => h.problem);
    expect(problems).toContain('with V = identity the function did not finish within the time limit');
    expect(problems).toContain('with V = identity the function threw Error: no probing me');
    expect([...probed.heatmaps!.values()].every((h) => h.actual === undefined)).toBe(true);
    const page = submissionPage(probed, ASSIGNMENT.cases, ASSIGNMENT.page);
    expect(page).toContain('No heatmap of yours:</strong> with V = identity the function did not finish within the time limit');
  });
});
