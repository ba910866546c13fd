/**
 * Drawn cases: a hidden case is described by a draw, a function from a few random choices to the
 * recipes of its inputs (recipes.ts), instead of fixed shapes and seeds. `npm run fixtures` stores
 * one draw of each (from STORED_DRAW); `npm run grade -- --hidden --variants SECRET` draws each
 * afresh per submission, from HMAC-SHA256(SECRET, the submission's name), so that students who
 * share hidden outputs share nothing useful, and the same secret and name give the same cases.
 *
 * A draw makes two kinds of choice from two streams: its structure (shapes, which dims, how many
 * heads) from a stream named by its `group`, and its values (each input's seed, a shift) from one
 * named by the case. Cases of one group have the same shapes in every draw and values of their
 * own: the same function called twice with the same shapes and new values, in one child.
 */
import { createHash, createHmac } from 'node:crypto';
import type seedrandomType from 'seedrandom';
import type { FixtureSpec } from './recipes';

/** The choices a draw makes. */
export interface Chooser {
  /** An integer in lo..hi (both included): structure. */
  int(lo: number, hi: number): number;
  /** One of `options`: structure. */
  pick<T>(options: readonly T[]): T;
  /** A number in [lo, hi): values. */
  uniform(lo: number, hi: number): number;
  /** A seed for an input's values (gaussian()): values. */
  seed(): number;
}

export interface DrawnSpec {
  draw(choose: Chooser): FixtureSpec;
  /** Cases of one group get the same structure (shapes) in every draw; default: the case's own. */
  group?: string;
}

export const isDrawn = (spec: FixtureSpec | DrawnSpec): spec is DrawnSpec => typeof (spec as DrawnSpec).draw === 'function';

/** The seed of the stored hidden fixtures: a draw like any other, from a name nobody submits under. */
export const STORED_DRAW = 'fixtures';

/** The seed of one submission's hidden cases. */
export const variantSeed = (secret: string, name: string): string => createHmac('sha256', secret).update(name).digest('hex');

/** What a batch records of the secret: its hash, never the secret itself. */
export const secretHash = (secret: string): string => createHash('sha256').update(`variants\0${secret}`).digest('hex');

let seedrandom: typeof seedrandomType | undefined;

function stream(name: string): () => number {
  seedrandom ??= require('seedrandom') as typeof seedrandomType;
  return seedrandom(name);
}

/** The choices of the case `key` under `seed`. */
export function chooser(seed: string, key: string, group = key): Chooser {
  const structure = stream(`${seed}\0structure\0${group}`);
  const values = stream(`${seed}\0values\0${key}`);
  return {
    int: (lo, hi) => lo + Math.floor(structure() * (hi - lo + 1)),
    pick: (options) => options[Math.floor(structure() * options.length)],
    uniform: (lo, hi) => lo + values() * (hi - lo),
    seed: () => Math.floor(values() * 2 ** 31),
  };
}

/** The recipes of case `key` drawn under `seed` (a fixed spec is its own draw). */
export function drawSpec(spec: FixtureSpec | DrawnSpec, seed: string, key: string): FixtureSpec {
  return isDrawn(spec) ? spec.draw(chooser(seed, key, spec.group)) : spec;
}
