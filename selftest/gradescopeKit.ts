/**
 * The Gradescope bundle used the way Gradescope uses it, for selftest/gradescope.test.ts and
 * selftest/gradescopeInstall.test.ts: unpacked as Gradescope unpacks it into <root>/source, then
 * `run_autograder` (bash) per submission with AUTOGRADER_ROOT=<root> in place of /autograder.
 * Every results.json must validate against lib/report/gradescope.schema.json.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import type { ZipEntry } from '../lib/gradescope/zip';
import { PROJECT_ROOT } from '../lib/paths';
import { GRADED_CASES } from '../tests/cases';

export interface Results {
  score: number;
  output: string;
  extra_data?: { containment?: { setting: string; missing: string[] } };
  tests: { name: string; score: number; max_score: number; status: string; output: string; visibility: string }[];
}

const schema: object = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'lib/report/gradescope.schema.json'), 'utf8'));
const validate = new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(schema);
export const FULL_MARKS = GRADED_CASES.reduce((sum, c) => sum + c.points, 0);
export const reference = () => fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8');

export function unpack(dir: string, files: readonly ZipEntry[]): void {
  for (const entry of files) {
    const file = path.join(dir, ...entry.name.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, entry.data, { mode: entry.mode });
  }
}

/** A fresh /autograder stand-in `<runs>/<name>`: `source` links to an unpacked bundle; `files` are the submission. */
export function autograderRoot(runs: string, name: string, files: Record<string, string>, source: string): string {
  const root = path.join(runs, name);
  fs.mkdirSync(path.join(root, 'submission'), { recursive: true });
  fs.symlinkSync(source, path.join(root, 'source'));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, 'submission', file)), { recursive: true });
    fs.writeFileSync(path.join(root, 'submission', file), text);
  }
  return root;
}

export interface AutograderRun {
  /** A command that runs it in another setting (selftest/simulatedSettings.ts). */
  prefix?: readonly string[];
  /** Set over the test's own environment. */
  env?: NodeJS.ProcessEnv;
}

/** Runs run_autograder as Gradescope does and returns the results.json it left, checked against the schema. */
export function runAutograder(root: string, { prefix = [], env = {} }: AutograderRun = {}): Promise<{ results: Results; log: string }> {
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, AUTOGRADER_ROOT: root, ...env };
  delete fullEnv.GITHUB_ACTIONS;
  const [file, ...args] = [...prefix, 'bash', path.join(root, 'source', 'run_autograder')];
  return new Promise((resolve, reject) => {
    execFile(file, args, { env: fullEnv, encoding: 'utf8' }, (_err, stdout, stderr) => {
      const file = path.join(root, 'results', 'results.json');
      if (!fs.existsSync(file)) return reject(new Error(`no results.json:\n${stdout}${stderr}`));
      const results = JSON.parse(fs.readFileSync(file, 'utf8')) as Results;
      const ok = validate(results);
      if (!ok) return reject(new Error(`results.json fails the schema: ${JSON.stringify(validate.errors)}`));
      resolve({ results, log: `${stdout}${stderr}` });
    });
  });
}
