import { describe, expect, it } from 'vitest';
import { linesParts, partsOf } from '../regions';
import { constants } from './constants';
import { indices } from './indices';
import { inputsInPlace } from './inputsInPlace';
import { keptState } from './keptState';
import { loopBound } from './loopBound';
import { missingReset } from './missingReset';
import { applyEdits, parse, type Operator } from './operator';
import { terms } from './terms';
import { wrongAxis } from './wrongAxis';

/** What each mutant of `op` makes of `source`, one line each (whitespace squeezed). */
const mutated = (op: Operator, source: string) =>
  op.mutants(parse('x.ts', source)).map((m) => applyEdits(source, m.edits).replace(/\s+/g, ' ').trim());

describe('the audit’s mutation operators', () => {
  it('LoopBound: the loop stops one short', () => {
    expect(mutated(loopBound, 'for (let i = 0; i < n; i++) f(i);')).toEqual(['for (let i = 0; i < (n) - 1; i++) f(i);']);
  });

  it('SwappedIndex and WrongIndex: indices of the loops around trade places, or one becomes another', () => {
    const out = mutated(indices, 'for (let b = 0; b < 2; b++) for (let i = 0; i < 3; i++) for (let c = 0; c < 4; c++) s += q[(b * 3 + i) * 4 + c];');
    expect(out).toContain('for (let b = 0; b < 2; b++) for (let i = 0; i < 3; i++) for (let c = 0; c < 4; c++) s += q[(b * 3 + c) * 4 + i];');
    expect(out).toContain('for (let b = 0; b < 2; b++) for (let i = 0; i < 3; i++) for (let c = 0; c < 4; c++) s += q[(i * 3 + b) * 4 + c];');
    expect(out.length).toBe(3);
  });

  it('WrongIndex: an index not in the expression takes one’s place', () => {
    const out = mutated(indices, 'for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) s += p[i];');
    expect(out).toEqual(['for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) s += p[j];']);
  });

  it('DroppedTerm, DoubledTerm, DroppedCall', () => {
    expect(mutated(terms, 'x = a + b;')).toEqual(['x = (a);', 'x = (b);']);
    expect(mutated(terms, 'x += e;')).toEqual(['x += 2 * (e);']);
    expect(mutated(terms, 'y = s / Math.sqrt(d);')).toEqual(['y = s / (d);']);
    expect(mutated(terms, "t = 'a' + b;")).toEqual([]);
  });

  it('Constant and InitialValue: neighbours of a number, and ±Infinity as 0 or ±1e9', () => {
    expect(mutated(constants, 'x = 1;')).toEqual(['x = 0;', 'x = 2;']);
    expect(mutated(constants, 'm = -Infinity;')).toEqual(['m = 0;', 'm = (-1000000000);']);
    expect(mutated(constants, 'y = x ** 0.5;')).toEqual(['y = x ** 1;', 'y = x ** 0.25;']);
  });

  it('MissingReset: a running value declared before its loop, a reset left out', () => {
    const out = mutated(missingReset, 'for (let i = 0; i < n; i++) { let sum = 0; for (let j = 0; j < n; j++) sum += p[i * n + j]; s[i] = sum; }');
    expect(out).toEqual(['let sum = 0; for (let i = 0; i < n; i++) { ; for (let j = 0; j < n; j++) sum += p[i * n + j]; s[i] = sum; }']);
    expect(mutated(missingReset, 'for (const r of rows) { acc.fill(0); use(acc, r); }')).toEqual(['for (const r of rows) { ; use(acc, r); }']);
    // Its size depends on the loop: it cannot be declared before it.
    expect(mutated(missingReset, 'for (let i = 0; i < n; i++) { const row = new Float64Array(i); use(row); }')).toEqual([]);
  });

  it('WrongAxis: a dim given to a tensor method becomes its neighbour; softmax’s dim becomes −1', () => {
    expect(mutated(wrongAxis, 'k.transpose(-2, -1);')).toEqual(['k.transpose(-1, -1);', 'k.transpose(-3, -1);', 'k.transpose(-2, -2);']);
    expect(mutated(wrongAxis, 'x.max(dim, true);')).toEqual(['x.max(-1, true);']);
  });

  it('KeptState: an array allocated per call is kept in the module for the next call of its size', () => {
    const [out] = mutated(keptState, 'function f(n: number) { const out = new Float64Array(n); return out; }');
    expect(out).toBe('function f(n: number) { const out = (__kept0 !== undefined && __kept0.length === (n) ? __kept0 : (__kept0 = new Float64Array(n))); return out; } let __kept0: any;');
    expect(mutated(keptState, 'const shared = new Float64Array(4);')).toEqual([]);
  });

  it('InputsInPlace: a copy of an input becomes the input itself', () => {
    expect(mutated(inputsInPlace, 'const m = mask.data.slice();')).toEqual(['const m = mask.data;']);
    expect(mutated(inputsInPlace, 'const d = Float64Array.from(x.data);')).toEqual(['const d = x.data;']);
    expect(mutated(inputsInPlace, 'const t = x.clone();')).toEqual(['const t = x;']);
  });
});

describe('audit parts', () => {
  it('a comment line names the lines below it; a comment at the end of a line names that line', () => {
    const parts = linesParts(['const a = 1;', '// audit: scale', 'const s = 1 / d;', 'const t = s * 2; // audit: mask', 'const u = t;', 'v = m ? -Infinity : u; // audit: mask, scale'].join('\n'));
    expect(parts).toEqual([[], [], ['scale'], ['mask'], ['scale'], ['mask', 'scale']]);
    expect(partsOf(parts, 3, 5).sort()).toEqual(['mask', 'scale']);
    expect(() => linesParts('// audit: sauce')).toThrow(/unknown audit part 'sauce'/);
  });
});
