/**
 * npm run explore [-- --out FILE]: the seed notebook's experiments (softmax saturation versus d_k
 * with and without the 1/√d_k scale; Problem 3's gradient flow, the gradient reaching Q and K
 * versus d_k with and without it; attention under no, causal and random masks), computed with the
 * reference and written as one self-contained page of SVG plots (default docs/explore.html).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { maskExperiment, scalingExperiment } from '../reference/explore/experiments';
import { gradientExperiment } from '../reference/explore/gradients';
import { explorePage } from '../reference/explore/page';
import { writeFileAtomic } from '../lib/fsAtomic';
import { displayPath, PROJECT_ROOT } from '../lib/paths';

const flags = parseFlags(process.argv.slice(2), { out: 'string' }, 'npm run explore -- [--out FILE]');
const out = path.resolve(flags.out ?? path.join(PROJECT_ROOT, 'docs', 'explore.html'));
fs.mkdirSync(path.dirname(out), { recursive: true });
writeFileAtomic(out, explorePage(scalingExperiment(), maskExperiment(), gradientExperiment()));
console.log(`wrote ${displayPath(out)}`);
