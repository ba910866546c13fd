/**
 * `--variants SECRET`: the hidden cases of one submission, drawn from HMAC-SHA256(SECRET, its name)
 * and built with the reference in the grading process (caseBuild.ts). They replace the stored
 * hidden fixtures of that submission only; its child gets their inputs, never what is expected.
 */
import type { GradedCase } from '../assignment/cases';
import { buildCase, type BuiltCase, type CaseReference } from './caseBuild';
import { drawSpec, isDrawn, secretHash, variantSeed, type DrawnSpec } from './draw';
import type { FixtureSpec } from './recipes';

export interface Variants {
  /** sha256 of the secret: what a batch records of it (draw.ts secretHash). */
  secretSha256: string;
  /** The hidden cases of `cases` drawn for the submission `name`, by fixture key. */
  draw(name: string, cases: readonly GradedCase[]): Map<string, BuiltCase>;
}

export function variantsOf(secret: string, specs: Readonly<Record<string, FixtureSpec | DrawnSpec>>, reference: CaseReference): Variants {
  for (const [key, spec] of Object.entries(specs)) {
    if (key.startsWith('hidden/') && !isDrawn(spec)) throw new Error(`reference/fixtures/specs.ts: hidden fixture "${key}" has fixed inputs; --variants needs every hidden case drawn (drawn(…))`);
  }
  return {
    secretSha256: secretHash(secret),
    draw(name, cases) {
      const seed = variantSeed(secret, name);
      const drawn = new Map<string, BuiltCase>();
      for (const graded of cases) {
        if (!graded.hidden || drawn.has(graded.fixture)) continue;
        const spec = specs[graded.fixture];
        if (!spec) throw new Error(`reference/fixtures/specs.ts does not define fixture "${graded.fixture}" of ${graded.name}`);
        drawn.set(graded.fixture, buildCase(graded, graded.fixture, drawSpec(spec, seed, graded.fixture), reference));
      }
      return drawn;
    },
  };
}
