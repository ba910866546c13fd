/**
 * The stubs import what their comments recommend: student/index.ts's advice (Tensor.zeros,
 * Tensor.where, new Tensor) works as written in the stub, with no import of the student's own.
 * With `import type { Tensor }` every one of these calls was a ReferenceError.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/paths';
import { grade } from './harness';
import { tempDir } from './materialize';

const stub = fs.readFileSync(path.join(PROJECT_ROOT, 'student', 'index.ts'), 'utf8');

describe('the stub as handed out', () => {
  it('Tensor.arange, Tensor.where, Tensor.zeros and new Tensor work with the import it already has', async () => {
    const filled = stub
      .replace("throw new NotImplementedError('causalMask');", 'const i = Tensor.arange(seqLen);\n  return Tensor.where(i.unsqueeze(1).ge(i.unsqueeze(0)), 1, Tensor.zeros([seqLen, seqLen])).astype(\'bool\');')
      .replace("throw new NotImplementedError('softmax');", 'const e = x.sub(x.max(dim, true)).exp();\n  return new Tensor(e.div(e.sum(dim, true)).data, e.shape);');
    expect(filled).not.toBe(stub);
    const dir = path.join(tempDir('stub-advice'), 'student');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'index.ts'), filled);
    const result = await grade(dir, 'student');
    const of = (fn: string) => result.cases.filter((c) => c.fn === fn);
    expect(of('causal_mask').map((c) => `${c.name}: ${c.status} ${c.reason}`)).toEqual(of('causal_mask').map((c) => `${c.name}: passed `));
    expect(of('softmax').every((c) => c.status === 'passed')).toBe(true);
  });
});
