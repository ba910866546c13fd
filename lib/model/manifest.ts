/**
 * fixtures/manifest.json: the one record of every fixture file's shape, dtype, seed and sha256,
 * and of each fixture's non-tensor arguments (softmax dim, number of heads, sequence length).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FixtureError } from '../errors';
import type { NpyDType } from '../npy';
import { displayPath, FIXTURES_DIR, FIXTURES_FIX } from '../paths';

export interface FileEntry {
  shape: number[];
  dtype: NpyDType;
  /** The seed of a generated input; null for files computed from others (expected outputs). */
  seed: number | null;
  /** How the values were made, in words. */
  recipe: string;
  sha256: string;
}

export interface FixtureEntry {
  hidden: boolean;
  params: Record<string, number>;
  files: Record<string, FileEntry>;
  /**
   * What each known mistake (lib/diagnosis/catalogue.ts) outputs on this fixture, by mistake id,
   * stored as `mistakes/<id>.npy` (mistakeFile). Only mistakes whose output is finite and differs
   * from expected.npy are listed; read only when a case fails.
   */
  mistakes: Record<string, FileEntry>;
}

export interface Manifest {
  about: string;
  fixtures: Record<string, FixtureEntry>;
}

export const MANIFEST_NAME = 'manifest.json';
export const EXPECTED_FILE = 'expected.npy';
/** A tuple return's expected part: expected_<part>.npy. */
export const EXPECTED_PART = /^expected_(\w+)\.npy$/;
export const expectedPartFile = (part: string): string => `expected_${part}.npy`;
/**
 * An attention case's expected probabilities softmax(Q Kᵀ/√d_k) with the mask, [...batch, queries,
 * keys], for the diagnosis and the heatmaps: the handout ships no code that computes attention, and
 * a hidden case's probabilities stay with its hidden fixture. Never an input of the case.
 */
export const PROBABILITIES_FILE = 'probabilities.npy';

/**
 * A case's float32 error bound, element by element, in float64 and of the expected output's shape:
 * how far a correct float32 computation in another order may land on these inputs, where that is
 * wider than the tolerance (the assignment's reference derives it; docs/float32-error.md). Written
 * beside the case, so the handout ships the bound and not the code that computes it. Never an input.
 */
export const BOUND_FILE = 'bound.npy';
/** A tuple return's part's bound: bound_<part>.npy, of that part's expected shape. */
export const BOUND_PART = /^bound_(\w+)\.npy$/;
export const boundPartFile = (part: string): string => `bound_${part}.npy`;
/** What a failure beyond it calls it: "beyond the float32 error bound of this case". */
export const BOUND_NAME = 'float32 error bound';

/** A mistake's output file, relative to its fixture's folder. */
export const mistakeFile = (id: string): string => `mistakes/${id}.npy`;

export function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function readManifest(fixturesDir = FIXTURES_DIR): Manifest {
  const file = path.join(fixturesDir, MANIFEST_NAME);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new FixtureError(`${displayPath(file, path.dirname(fixturesDir))}: not found; ${FIXTURES_FIX}`);
  }
  try {
    const manifest = JSON.parse(text) as Manifest;
    if (typeof manifest.fixtures !== 'object' || manifest.fixtures === null) throw new Error('no "fixtures" object');
    return manifest;
  } catch (err) {
    throw new FixtureError(`${displayPath(file, path.dirname(fixturesDir))}: not valid JSON (${(err as Error).message}); ${FIXTURES_FIX}`);
  }
}

export function manifestEntry(manifest: Manifest, key: string, fixturesDir = FIXTURES_DIR): FixtureEntry {
  const entry = manifest.fixtures[key];
  if (!entry) {
    throw new FixtureError(
      `${displayPath(path.join(fixturesDir, MANIFEST_NAME), path.dirname(fixturesDir))}: no fixture "${key}"; ${FIXTURES_FIX}`,
    );
  }
  return entry;
}
