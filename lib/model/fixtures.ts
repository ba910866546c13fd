/**
 * Loads a graded case's fixture: its input tensors, arguments and expected output, and on demand
 * what each known mistake outputs on it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FixtureError } from '../errors';
import { parseNpy, type NpyArray } from '../npy';
import { displayPath, FIXTURES_DIR, FIXTURES_FIX, IS_HANDOUT } from '../paths';
import { Tensor } from '../tensor';
import type { Widening } from '../compare';
import { BOUND_FILE, BOUND_NAME, BOUND_PART, boundPartFile, EXPECTED_FILE, EXPECTED_PART, PROBABILITIES_FILE, manifestEntry, mistakeFile, readManifest, sha256, type FileEntry, type Manifest } from './manifest';

export interface LoadedFixture {
  key: string;
  params: Record<string, number>;
  /** Keyed by file name without `.npy` (q, k, v, mask, x, q_proj, …). */
  inputs: Record<string, Tensor>;
  /** The expected output: expected.npy, or a tuple return's first part. */
  expected: Tensor;
  /** A tuple return's expected parts, by part name (expected_<part>.npy); empty for a single tensor. */
  parts: Record<string, Tensor>;
  /** An attention case's expected probabilities (PROBABILITIES_FILE), read on the first call; undefined for other cases. */
  probabilities(): Tensor | undefined;
  /**
   * Each known mistake's output on this fixture, by mistake id. Read from disk on the first call
   * only: the student loop calls it when a case fails, so a passing test never reads these files.
   */
  mistakes(): ReadonlyMap<string, Tensor>;
  /**
   * The case's float32 error bound on its expected output (BOUND_FILE), or on a tuple return's
   * `part` (BOUND_PART), read on the first call; undefined when it has none.
   */
  bound(part?: string): Tensor | undefined;
}

/**
 * The fixture's bound as the check widens its tolerance by it (lib/compare.ts checkClose), read only
 * if an element needs it: of its one output, or of a tuple return's `part`.
 */
export function boundWidening(fixture: Pick<LoadedFixture, 'bound'>, part?: string): Widening {
  // A case without a bound widens nothing: no element has a bound to be within.
  return { name: BOUND_NAME, bounds: () => fixture.bound(part)?.data ?? NO_BOUND };
}
const NO_BOUND: ArrayLike<number> = { length: 0 };

export interface LoadOptions {
  fixturesDir?: string;
  manifest?: Manifest;
  /** Check every file's sha256 against the manifest (the grader does; the student loop need not). */
  verify?: boolean;
}

/** Reads a fixture file once: its bytes are hashed (when verifying) and parsed from the same read. */
function readChecked(file: string, entry: FileEntry, verify: boolean, fixturesDir: string): NpyArray {
  const label = displayPath(file, path.dirname(fixturesDir));
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    throw new FixtureError(`${label}: not found; ${FIXTURES_FIX}`);
  }
  if (verify && sha256(bytes) !== entry.sha256) {
    throw new FixtureError(`${label}: sha256 does not match fixtures/manifest.json (the file was changed); restore it with \`git checkout fixtures\`${IS_HANDOUT ? '' : ' or \`npm run fixtures\`'}`);
  }
  const array = parseNpy(bytes, label);
  const sameShape = array.shape.length === entry.shape.length && array.shape.every((n, i) => n === entry.shape[i]);
  if (!sameShape || array.dtype !== entry.dtype) {
    throw new FixtureError(
      `${label}: holds ${array.dtype} [${array.shape.join(', ')}] but the manifest says ${entry.dtype} [${entry.shape.join(', ')}]; ${FIXTURES_FIX}`,
    );
  }
  return array;
}

export function loadFixture(key: string, options: LoadOptions = {}): LoadedFixture {
  const fixturesDir = options.fixturesDir ?? FIXTURES_DIR;
  const verify = options.verify ?? false;
  const entry = manifestEntry(options.manifest ?? readManifest(fixturesDir), key, fixturesDir);
  const read = (name: string, fileEntry: FileEntry) => {
    const array = readChecked(path.join(fixturesDir, key, name), fileEntry, verify, fixturesDir);
    return new Tensor(array.data, array.shape);
  };
  const inputs: Record<string, Tensor> = {};
  const parts: Record<string, Tensor> = {};
  let expected: Tensor | undefined;
  for (const [name, fileEntry] of Object.entries(entry.files)) {
    const part = EXPECTED_PART.exec(name)?.[1];
    if (name === EXPECTED_FILE) expected = read(name, fileEntry);
    else if (part) {
      parts[part] = read(name, fileEntry);
      expected ??= parts[part];
    }
    else if (name !== PROBABILITIES_FILE && name !== BOUND_FILE && !BOUND_PART.test(name)) inputs[name.replace(/\.npy$/, '')] = read(name, fileEntry);
  }
  if (!expected) throw new FixtureError(`fixtures/${key}: the manifest lists no ${EXPECTED_FILE}; ${FIXTURES_FIX}`);
  let mistakes: Map<string, Tensor> | undefined;
  const loadMistakes = () =>
    (mistakes ??= new Map(Object.entries(entry.mistakes).map(([id, fileEntry]) => [id, read(mistakeFile(id), fileEntry)])));
  let probabilities: Tensor | undefined;
  const probabilitiesEntry = entry.files[PROBABILITIES_FILE];
  const loadProbabilities = () => (probabilities ??= probabilitiesEntry && read(PROBABILITIES_FILE, probabilitiesEntry));
  const bounds = new Map<string, Tensor | undefined>();
  const loadBound = (part?: string) => {
    const file = part === undefined ? BOUND_FILE : boundPartFile(part);
    if (!bounds.has(file)) bounds.set(file, entry.files[file] && read(file, entry.files[file]));
    return bounds.get(file);
  };
  return { key, params: entry.params, inputs, expected, parts, probabilities: loadProbabilities, mistakes: loadMistakes, bound: loadBound };
}
