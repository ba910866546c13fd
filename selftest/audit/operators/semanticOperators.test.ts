import { describe, expect, it } from 'vitest';
import { floatReorder } from './floatReorder';
import { keyedCache } from './keyedCache';
import { multiHeadParts } from './multiHeadParts';
import { applyEdits, parse, type Operator } from './operator';
import { shiftRemoved } from './shiftRemoved';
import { swappedOperands } from './swappedOperands';
import { writtenElsewhere } from './writtenElsewhere';

/** What each mutant of `op` makes of `source`, one line each (whitespace squeezed), with its operator. */
const mutated = (op: Operator, source: string) =>
  op.mutants(parse('x.ts', source)).map((m) => `${m.operator}: ${applyEdits(source, m.edits).replace(/\s+/g, ' ').trim()}`);

describe('the audit’s operators for semantic mistakes (issue 43)', () => {
  it('KeyedCache: a value computed from the arguments is cached under their shapes, once per call only', () => {
    const out = mutated(keyedCache, 'function f(Q, mask) { const blocked = mask.logicalNot(); return Q.add(blocked); }');
    expect(out).toEqual([
      "KeyedCache: function f(Q, mask) { const blocked = (__cache0.has(JSON.stringify([(mask as any)?.shape ?? (typeof mask === 'number' ? mask : null)])) ? __cache0.get(JSON.stringify([(mask as any)?.shape ?? (typeof mask === 'number' ? mask : null)])) : (__cache0.set(JSON.stringify([(mask as any)?.shape ?? (typeof mask === 'number' ? mask : null)]), (mask.logicalNot())), __cache0.get(JSON.stringify([(mask as any)?.shape ?? (typeof mask === 'number' ? mask : null)])))); return Q.add(blocked); } const __cache0 = new Map<string, any>();",
    ]);
    // Inside a loop the value belongs to the iteration; a parameter alone is nothing to cache.
    expect(mutated(keyedCache, 'function f(x, n) { for (let i = 0; i < n; i++) { const y = x.mul(i); } const z = x; }')).toEqual([]);
  });

  it('KeyedCache: the cached value outlives the call, and a call with other values of the same shapes gets it', () => {
    const source = 'export function scale(x) { const s = x.v * 2; return s; }';
    const [mutant] = keyedCache.mutants(parse('x.ts', source));
    const js = applyEdits(source, mutant.edits).replace(/ as any/g, '').replace('new Map<string, any>()', 'new Map()').replace('export ', '');
    const scale = new Function(`${js}; return scale;`)() as (x: { v: number; shape: number[] }) => number;
    expect(scale({ v: 1, shape: [2] })).toBe(2);
    expect(scale({ v: 5, shape: [2] })).toBe(2);
    expect(scale({ v: 5, shape: [3] })).toBe(10);
  });

  it('WrittenElsewhere: one loop index of a store runs the other way', () => {
    const out = mutated(writtenElsewhere, 'for (let b = 0; b < B; b++) for (let i = 0; i < n; i++) out[b * n + i] = f(b, i);');
    expect(out).toEqual([
      'WrittenElsewhere: for (let b = 0; b < B; b++) for (let i = 0; i < n; i++) out[(B - 1 - b) * n + i] = f(b, i);',
      'WrittenElsewhere: for (let b = 0; b < B; b++) for (let i = 0; i < n; i++) out[b * n + (n - 1 - i)] = f(b, i);',
    ]);
    expect(mutated(writtenElsewhere, 'for (let i = 0; i < n; i++) out.set(row, i * d);')).toEqual(['WrittenElsewhere: for (let i = 0; i < n; i++) out.set(row, (n - 1 - i) * d);']);
    // A read is not a store.
    expect(mutated(writtenElsewhere, 'for (let i = 0; i < n; i++) s += x[i];')).toEqual([]);
  });

  it('SwappedOperands: K Qᵀ for Q Kᵀ, in methods, in loops and in a call', () => {
    expect(mutated(swappedOperands, 'const s = Q.matmul(K.transpose(-2, -1));')).toEqual(['SwappedOperands: const s = K.matmul(Q.transpose(-2, -1));']);
    expect(mutated(swappedOperands, 'for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) for (let c = 0; c < d; c++) s += q[i * d + c] * k[j * d + c];'))
      .toEqual(['SwappedOperands: for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) for (let c = 0; c < d; c++) s += q[j * d + c] * k[i * d + c];']);
    expect(mutated(swappedOperands, 'attend(q, k, v, mask);')).toEqual(['SwappedOperands: attend(k, q, v, mask);']);
    expect(mutated(swappedOperands, 'x.reshape(...lead, seq, d);')).toEqual([]);
  });

  it('ShiftRemoved: what exp is taken of loses what is subtracted from it, one place at a time', () => {
    expect(mutated(shiftRemoved, 'num = Math.exp(s[j] - max); den += Math.exp(s[j] - max);')).toEqual([
      'ShiftRemoved: num = Math.exp(s[j]); den += Math.exp(s[j] - max);',
      'ShiftRemoved: num = Math.exp(s[j] - max); den += Math.exp(s[j]);',
    ]);
    expect(mutated(shiftRemoved, 'const e = x.sub(x.max(dim, true)).exp();')).toEqual(['ShiftRemoved: const e = x.exp();']);
  });

  it('FloatReorder: sums and products regrouped, a division by a root made a product, an accumulating loop run backwards', () => {
    expect(mutated(floatReorder, 'y = a + b + c;')).toEqual(['FloatReorder: y = a + (b + c);']);
    expect(mutated(floatReorder, 'y = a * b * c * d;')).toEqual(['FloatReorder: y = a * b * (c * d);']);
    expect(mutated(floatReorder, 'y = s / Math.sqrt(d);')).toEqual(['FloatReorder: y = s * (1 / Math.sqrt(d));']);
    expect(mutated(floatReorder, 'y = n / d;')).toEqual([]);
    expect(mutated(floatReorder, 'for (let j = 0; j < n; j++) sum += p[j];')).toEqual(['FloatReorder: for (let j = (n) - 1; j >= 0; j--) sum += p[j];']);
    // A loop that does more than add up depends on its order.
    expect(mutated(floatReorder, 'for (let j = 0; j < n; j++) { out[j] = s; s += p[j]; }')).toEqual([]);
  });

  it('MultiHeadParts: only on the lines of a multi-head part, each part broken its own way', () => {
    const source = [
      '// audit: projection',
      'const q = x.matmul(w.qProj.transpose(-2, -1));',
      '// audit: split',
      'const h = q.reshape(seq, numHeads, dHead).transpose(-3, -2);',
      'const o = attend(h, h, h, mask); // audit: heads',
      '// audit: oproj',
      'return o.matmul(w.oProj.transpose(-2, -1));',
      '// audit: scores',
      'const s = Q.matmul(K.transpose(-2, -1));',
    ].join('\n');
    expect(mutated(multiHeadParts, source).map((m) => m.replace(/ \/\/ audit: \w+/g, ''))).toEqual([
      'DroppedTranspose: const q = x.matmul(w.qProj); const h = q.reshape(seq, numHeads, dHead).transpose(-3, -2); const o = attend(h, h, h, mask); return o.matmul(w.oProj.transpose(-2, -1)); const s = Q.matmul(K.transpose(-2, -1));',
      'SwappedWeight: const q = x.matmul(w.kProj.transpose(-2, -1)); const h = q.reshape(seq, numHeads, dHead).transpose(-3, -2); const o = attend(h, h, h, mask); return o.matmul(w.oProj.transpose(-2, -1)); const s = Q.matmul(K.transpose(-2, -1));',
      'DroppedTranspose: const q = x.matmul(w.qProj.transpose(-2, -1)); const h = q.reshape(seq, numHeads, dHead); const o = attend(h, h, h, mask); return o.matmul(w.oProj.transpose(-2, -1)); const s = Q.matmul(K.transpose(-2, -1));',
      'SwappedHeadDims: const q = x.matmul(w.qProj.transpose(-2, -1)); const h = q.reshape(seq, dHead, numHeads).transpose(-3, -2); const o = attend(h, h, h, mask); return o.matmul(w.oProj.transpose(-2, -1)); const s = Q.matmul(K.transpose(-2, -1));',
      'DroppedMask: const q = x.matmul(w.qProj.transpose(-2, -1)); const h = q.reshape(seq, numHeads, dHead).transpose(-3, -2); const o = attend(h, h, h, undefined); return o.matmul(w.oProj.transpose(-2, -1)); const s = Q.matmul(K.transpose(-2, -1));',
      'DroppedOutputProjection: const q = x.matmul(w.qProj.transpose(-2, -1)); const h = q.reshape(seq, numHeads, dHead).transpose(-3, -2); const o = attend(h, h, h, mask); return o; const s = Q.matmul(K.transpose(-2, -1));',
      'DroppedTranspose: const q = x.matmul(w.qProj.transpose(-2, -1)); const h = q.reshape(seq, numHeads, dHead).transpose(-3, -2); const o = attend(h, h, h, mask); return o.matmul(w.oProj); const s = Q.matmul(K.transpose(-2, -1));',
    ]);
  });
});
