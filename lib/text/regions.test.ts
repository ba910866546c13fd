import { describe, expect, it } from 'vitest';
import { hasRegions, keepRegions } from './regions';

const KNOWN = ['core', 'weights', 'heads'];

describe('keepRegions: the lines of the parts that are on, without the markers', () => {
  const code = ['a', '// part: weights', 'b', '// end part', 'c', '  // part: heads, weights', '  d', '  // end part', 'e'].join('\n');

  it.each([
    ['no part on', [], 'a\nc\ne'],
    ['one part of a region', ['heads'], 'a\nc\n  d\ne'],
    ['each region by any of its parts', ['weights'], 'a\nb\nc\n  d\ne'],
  ])('%s', (_, on, kept) => {
    expect(keepRegions(code, on, KNOWN)).toBe(kept);
  });

  it('Markdown regions alike, and a text without regions unchanged to the byte', () => {
    const markdown = '# T\n<!-- part: weights -->\nmore\n<!-- end part -->\nend\n';
    expect(keepRegions(markdown, ['core'], KNOWN)).toBe('# T\nend\n');
    expect(keepRegions(markdown, ['weights'], KNOWN)).toBe('# T\nmore\nend\n');
    const plain = 'line\r\n\n  // a part of speech\n';
    expect(keepRegions(plain, [], KNOWN)).toBe(plain);
    expect(hasRegions(plain)).toBe(false);
    expect(hasRegions(markdown)).toBe(true);
  });

  it.each([
    ['an unknown part', 'x\n// part: weight\ny\n// end part', 'line 2: no part named weight (the parts are core, weights, heads)'],
    ['no part', '// part:\n// end part', 'line 1: a part region names no part'],
    ['a region in a region', '// part: core\n// part: heads\n// end part\n// end part', 'line 2: a part region opens inside the one opened on line 1'],
    ['a close without an open', 'x\n<!-- end part -->', 'line 2: a part region closes that no line opened'],
    ['an open without a close', '\n\n<!-- part: heads -->\nx', 'line 3: a part region opens and never closes'],
  ])('refuses %s, naming the line', (_, text, said) => {
    expect(() => keepRegions(text, KNOWN, KNOWN)).toThrow(said);
  });
});
