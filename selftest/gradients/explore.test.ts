/**
 * npm run explore's gradient flow (reference/explore/gradients.ts): its gradients without the
 * scale, made from the reference's scaled backward pass by the chain rule through Q' = √d_k·Q,
 * are those of softmax(Q Kᵀ) V by finite differences; and what it shows is what Problem 3 says:
 * with the scale the gradient reaching Q and K holds at every d_k, without it it vanishes as d_k
 * grows.
 */
import { describe, expect, it } from 'vitest';
import { Tensor } from '../../lib/tensor';
import * as reference from '../../reference';
import { explorePage } from '../../reference/explore/page';
import { gradientExperiment, GRADIENT_DK } from '../../reference/explore/gradients';
import { attentionBackwardByDifferences } from './finiteDifferences';

describe('the gradient flow experiment', () => {
  const points = gradientExperiment();

  it('without the scale, the gradients it computes are those of softmax(Q Kᵀ) V', () => {
    const d = 9;
    const [q, k, v, dOut] = ['q', 'k', 'v', 'dout'].map((name) => Tensor.randn([2, 4, d], `explore test ${name}`, 'float64'));
    // softmax(Q Kᵀ) V is the oracle's attention of Q·√d_k; its finite differences with respect to Q scale back by √d_k.
    const root = Math.sqrt(d);
    const differences = attentionBackwardByDifferences(q.mul(root), k, v, dOut);
    const unscaled = reference.scaledDotProductAttentionBackward(q.mul(root), k, v, dOut);
    for (let i = 0; i < q.size; i++) expect(unscaled.dQ.data[i]).toBeCloseTo(differences.dQ.data[i], 6);
    for (let i = 0; i < k.size; i++) expect(unscaled.dK.data[i]).toBeCloseTo(differences.dK.data[i], 6);
  });

  it('with the scale the median gradient holds, without it it falls by orders of magnitude and more entries vanish', () => {
    expect(points.map((p) => p.dK)).toEqual([...GRADIENT_DK]);
    for (const p of points) {
      for (const g of [p.scaled.dQ, p.scaled.dK]) {
        expect(g.median).toBeGreaterThan(0.1);
        expect(g.median).toBeLessThan(0.4);
        expect(g.vanished).toBe(0);
      }
    }
    const [first, last] = [points[0], points[points.length - 1]];
    expect(last.unscaled.dQ.median).toBeLessThan(1e-3 * last.scaled.dQ.median);
    expect(last.unscaled.dQ.vanished).toBeGreaterThan(first.unscaled.dQ.vanished + 20);
    expect(last.unscaled.dK.vanished).toBeGreaterThan(first.unscaled.dK.vanished);
  });

  it('the page draws it as two plots of four curves', () => {
    const page = explorePage([], [], points);
    const section = page.slice(page.indexOf('<h2>Gradient flow</h2>'), page.indexOf('<h2>Masks</h2>'));
    expect(section.match(/<svg class="plot"/g)?.length).toBe(2);
    expect(section.match(/class="point"/g)?.length).toBe(2 * 4 * GRADIENT_DK.length);
  });
});
