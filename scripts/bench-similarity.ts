/**
 * npm run bench:similarity [-- --submissions N]: the similarity check on N typical submissions
 * (lib/bench/similarity.ts), its section of docs/benchmarks.md rewritten with the figures.
 * `npm run bench` measures it too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { describeMachine, machine } from '../lib/bench/measure';
import { withSection } from '../lib/bench/benchmarksDoc';
import { measureSimilarity, similaritySection } from '../lib/bench/similarity';
import { PROJECT_ROOT } from '../lib/paths';
import { layOutCatalogue } from '../selftest/benchSubmissions';

const flags = parseFlags(process.argv.slice(2), { submissions: 'number' }, 'npm run bench:similarity [-- --submissions N]');
const count = flags.submissions ?? 1000;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-similarity-'));
layOutCatalogue(work, count);
measureSimilarity(work, count)
  .then((result) => {
    const section = [
      ...similaritySection(result),
      '',
      `(This section measured on ${new Date().toISOString().slice(0, 10)} by \`npm run bench:similarity\` alone, on ${describeMachine(machine())}, `
        + `load average ${os.loadavg()[0].toFixed(2)}; the rest of the file is the run named at its top.)`,
    ];
    const file = path.join(PROJECT_ROOT, 'docs', 'benchmarks.md');
    fs.writeFileSync(file, withSection(fs.readFileSync(file, 'utf8'), section));
    console.log(section.join('\n'));
  })
  .finally(() => fs.rmSync(work, { recursive: true, force: true }));
