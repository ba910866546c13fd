/**
 * Golden results, compared whole, for every outcome the grader reports: passed, failed,
 * not implemented, error, timeout, crashed, refused import, and misbehaviour at load time.
 * UPDATE_GOLDEN=1 rewrites them (review the diff before committing).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/paths';
import { grade, stable } from './harness';
import { materialize, tempDir } from './materialize';

const GOLDEN = path.join(__dirname, 'golden');
const work = tempDir('outcomes');
const misbehaving = (name: string) => materialize(path.join(__dirname, 'misbehaving', `${name}.ts`), work);
const catalogued = (name: string) => materialize(path.join(__dirname, '..', 'catalogue', 'bugs', `${name}.ts`), work);

const SUBMISSIONS: Record<string, { dir: () => string; timeoutMs?: number }> = {
  reference: { dir: () => path.join(PROJECT_ROOT, 'reference') },
  stubs: { dir: () => path.join(PROJECT_ROOT, 'student') },
  bug_scale_missing: { dir: () => catalogued('scale_missing') },
  throws_non_errors: { dir: () => misbehaving('throws_non_errors') },
  hang_in_attention: { dir: () => misbehaving('hang_in_attention'), timeoutMs: 700 },
  exit_in_causal_mask: { dir: () => misbehaving('exit_in_causal_mask') },
  refused_import: { dir: () => misbehaving('refused_import') },
  exit_at_import: { dir: () => misbehaving('exit_at_import') },
  hang_at_import: { dir: () => misbehaving('hang_at_import'), timeoutMs: 700 },
  noisy_async: { dir: () => misbehaving('noisy_async') },
  missing_index: { dir: () => fs.mkdirSync(path.join(work, 'empty'), { recursive: true }) ?? path.join(work, 'empty') },
};

describe('grader outcomes match their golden results', () => {
  it.each(Object.keys(SUBMISSIONS))('%s', async (name) => {
    const { dir, timeoutMs } = SUBMISSIONS[name];
    const result = stable(await grade(dir(), name, timeoutMs ? { timeoutMs } : {}));
    const file = path.join(GOLDEN, `${name}.json`);
    if (process.env.UPDATE_GOLDEN) fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    expect(result).toEqual(JSON.parse(fs.readFileSync(file, 'utf8')));
  });
});
