/**
 * The report's probes (lib/grading/probe.ts): one extra call per failed attention case, with V the
 * identity, after grading. They must leave every verdict as it was, show what the submission's
 * probabilities are, and turn a probe that throws or hangs into a sentence instead of a heatmap.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../lib/grading/fixtures';
import { attentionProbabilities } from '../../lib/report/probabilities';
import { submissionPage } from '../../lib/report/submissionPage';
import { visibleCases } from '../../tests/cases';
import { grade, stable } from './harness';
import { materialize, tempDir } from './materialize';

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
    for (const [name, { actual, expected, problem }] of probed.heatmaps!) {
      expect(problem, name).toBeUndefined();
      expect([actual!.rows, actual!.cols], name).toEqual([expected.rows, expected.cols]);
      // softmax(Q Kᵀ) is softmax(Q' Kᵀ/√d_k) with Q' = √d_k·Q: what this submission computes.
      const { q, k, mask } = loadFixture(visibleCases().find((c) => c.name === name)!.fixture).inputs;
      const unscaled = attentionProbabilities({ shape: q.shape, data: q.data.map((x) => x * Math.sqrt(q.shape[q.ndim - 1])) }, k, mask);
      const worst = Math.max(...Array.from(actual!.data, (x, i) => Math.abs(x - unscaled.data[i])));
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
    const page = submissionPage(probed);
    expect(page).toContain('No heatmap of yours:</strong> with V = identity the function did not finish within the time limit');
  });
});
