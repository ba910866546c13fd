/**
 * npm run audit:diagnosis [-- --workers N] [--sample N] [--solution NAME] [--operators A,B] [--json FILE] [--docs] [--write-sample]:
 * the diagnosis measured on generated mistakes (selftest/audit/audit.ts). A benchmark, not a unit
 * test: it prints its figures and the claims that do not fit; --docs writes them to
 * docs/benchmarks.md (its own section, the others kept); --json keeps every mutant's record;
 * --write-sample draws the self-tests' fixed sample again (selftest/audit/sample.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { audit, figures } from '../selftest/audit/audit';
import { auditMarkdown, misfitLine, SECTION } from '../selftest/audit/report';
import { machine } from '../lib/bench/measure';
import { drawSample, type SampleEntry } from '../selftest/audit/sample';
import { PROJECT_ROOT } from '../lib/paths';
import { AUDITED } from '../selftest/catalogue';

const USAGE = 'npm run audit:diagnosis -- [--workers N] [--sample N] [--solution NAME] [--operators A,B] [--json FILE] [--docs] [--write-sample]';
const flags = parseFlags(process.argv.slice(2), {
  workers: 'number', sample: 'number', solution: 'string', operators: 'string', json: 'string', docs: 'boolean', 'write-sample': 'boolean',
}, USAGE);
/** --operators: only the mutants of these operators (a figure per operator without the whole run). */
const only = flags.operators?.split(',').map((name) => name.trim()).filter(Boolean);
const SAMPLE = path.join(PROJECT_ROOT, 'selftest', 'catalogue', 'auditSample.json');
const workers = flags.workers ?? 2;
const limitMs = 1500;

async function main(): Promise<void> {
  const solutions = AUDITED.filter((e) => !flags.solution || e.name === flags.solution).map((e) => ({ name: e.name, entry: e.file }));
  if (solutions.length === 0) throw new Error(`no audited solution is named ${flags.solution} (${AUDITED.map((e) => e.name).join(', ')})`);
  const started = Date.now();
  let shown = 0;
  const loadStart = os.loadavg()[0];
  const { records, cpuMs } = await audit(solutions, {
    workers, limitMs, watchdogMs: 120_000,
    pick: (all) => {
      const chosen = only ? all.filter((m) => only.includes(m.operator)) : all;
      // Every k-th mutant: the same sample each run.
      return flags.sample ? chosen.filter((_, i) => i % Math.max(1, Math.floor(chosen.length / flags.sample!)) === 0).slice(0, flags.sample) : chosen;
    },
    progress: (done, all) => {
      if (done === all || done - shown >= 100) {
        shown = done;
        console.log(`audit: ${done} of ${all} mutants graded (${Math.round((Date.now() - started) / 1000)} s)`);
      }
    },
  });
  const result = figures(records, (Date.now() - started) / 1000, cpuMs / 1000);
  const command = `npm run audit:diagnosis${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  const markdown = auditMarkdown(result, {
    machine: machine(), date: new Date().toISOString().slice(0, 10), command, workers, limitMs, load: { start: loadStart, end: os.loadavg()[0] },
  });
  console.log(markdown);
  for (const misfit of result.misfits) console.log(`does not fit: ${misfitLine(misfit)}`);
  if (flags.json) fs.writeFileSync(path.resolve(flags.json), JSON.stringify(records, null, 1));
  if (flags['write-sample']) {
    const previous = fs.existsSync(SAMPLE) ? (JSON.parse(fs.readFileSync(SAMPLE, 'utf8')) as SampleEntry[]) : [];
    const sample = drawSample(records, previous);
    fs.writeFileSync(SAMPLE, `${JSON.stringify(sample, null, 1)}\n`);
    console.log(`audit: wrote ${sample.length} mutants to selftest/catalogue/auditSample.json`);
  }
  if (flags.docs) {
    const file = path.join(PROJECT_ROOT, 'docs', 'benchmarks.md');
    const previous = fs.readFileSync(file, 'utf8');
    const sections = previous.split(/\n(?=## )/);
    const at = sections.findIndex((s) => s.startsWith(SECTION));
    if (at >= 0) sections[at] = markdown.trimEnd();
    else sections.push(markdown.trimEnd());
    fs.writeFileSync(file, `${sections.join('\n').trimEnd()}\n`);
    console.log('audit: wrote docs/benchmarks.md');
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
