import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { gradeSubmission, loadCaseFixtures, prepareChild, checkChildStarts } from '../lib/grading/grade';
import { visibleCases } from '../tests/cases';
import { layOutCatalogue } from '../selftest/benchSubmissions';
import { startTypeCheck } from '../lib/typecheck/run';
(async () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'prof-'));
  layOutCatalogue(work, 30);
  const cases = visibleCases();
  const child = prepareChild();
  await checkChildStarts(child);
  const options = { cases, fixtures: loadCaseFixtures(cases), child, timeoutMs: 10000, outputCap: 4096, typeNotes: startTypeCheck([]) };
  const names = fs.readdirSync(work);
  for (const [label, extra] of [['plain', {}], ['heatmaps', { heatmaps: true }], ['plain again', {}]] as const) {
    const t = Date.now();
    const queue = [...names];
    const worker = async () => { for (let n = queue.shift(); n; n = queue.shift()) await gradeSubmission(path.join(work, n), n, { ...options, ...extra }); };
    await Promise.all([worker(), worker()]);
    console.log(label, ((Date.now() - t) / names.length).toFixed(0), 'ms per submission (2 jobs)');
  }
  const t = Date.now();
  let left = names.length;
  const { spawn } = await import('node:child_process');
  const w = async () => { for (; left > 0; left--) await new Promise((r) => spawn(child.file, child.args.slice(0, -1).concat([path.join(path.dirname(child.args[child.args.length - 1]), 'empty.js')]), { stdio: 'ignore', env: {}, detached: true }).on('exit', r)); };
  await Promise.all([w(), w()]);
  console.log('contained empty start', ((Date.now() - t) / names.length).toFixed(0), 'ms each (2 at a time)');
  fs.rmSync(work, { recursive: true, force: true });
})();
