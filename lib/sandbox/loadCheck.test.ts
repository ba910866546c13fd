/**
 * A refused import says what a submission may import, named as the stub imports it: every harness
 * module (protocol.ts HARNESS_MODULES), none left out (the stub's own `../lib/errors` once was).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../paths';
import { checkSubmission } from './loadCheck';
import { scanModule } from './imports';
import { harnessModuleOf, HARNESS_MODULES } from './protocol';

describe('checkSubmission', () => {
  it.each(['node:fs', '../lib/compare', 'seedrandom', '../../reference/index'])('an import of %s is refused, naming every module a submission may import', (specifier) => {
    const { refused } = checkSubmission({ files: { 'index.ts': `import x from '${specifier}';\nexport const y = x;\n` }, entry: 'index.ts', label: 'student' });
    expect(refused).toEqual([`student/index.ts:1:15 imports "${specifier}", which a submission may not use: import only files inside your folder, ../lib/tensor or ../lib/errors`]);
    for (const module of Object.values(HARNESS_MODULES)) expect(refused[0]).toContain(`../${module}`);
  });

  it("names the stub's own harness imports as the stub writes them", () => {
    const stub = fs.readFileSync(path.join(PROJECT_ROOT, 'student', 'index.ts'), 'utf8');
    const harness = scanModule(stub, 'index.ts', 'student').imports.map((i) => i.specifier).filter((s) => harnessModuleOf(s));
    expect(harness.length).toBeGreaterThan(0);
    const { refused } = checkSubmission({ files: { 'index.ts': "import 'node:fs';\n" }, entry: 'index.ts', label: 'student' });
    for (const specifier of harness) expect(refused[0]).toContain(specifier);
  });
});
