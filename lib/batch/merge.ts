/**
 * `npm run merge`: joins the outputs of `--shard 1/n` … `--shard n/n` into the folder one machine
 * would have written: every `<stem>.json` and `<stem>.html` (lib/report/layout.ts) as the shards wrote them, then
 * `grades.csv`, `report.html` and `batch.json` rebuilt from them exactly as a whole run builds its
 * own. Before writing anything it checks that the outputs belong together, and refuses with one
 * line naming the culprit: a folder that is not a finished batch, a different case table, fixtures
 * or options, a shard missing or given twice, shards cut from different submissions folders, a
 * submission graded twice, or a result missing or graded differently from its shard. What it
 * copies is read as a hostile folder's files are (shardFile.ts: never through a link, regular
 * files only) and charged to one walk budget before anything is written (MERGE_LIMITS).
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fsAtomic';
import { oneLine } from '../text/sanitise';
import { WalkBudget, type WalkCaps } from '../intake/walkBudget';
import { batchReportHtml, pageFile, REPORT_FILE, resultsFile, SUBMISSIONS_DIR } from '../report/batchReport';
import { gradebookCsv, rowFromGradescope, type GradebookRow } from '../report/csv';
import type { GradescopeResults } from '../report/gradescope';
import { courseExports, type CanvasExport, type CourseExportOptions } from '../report/exports';
import type { SummaryEntry } from '../report/terminal';
import { visibleOf, type GradedCase } from '../assignment/cases';
import { badName, RESULT_BYTES, resultProblem } from './checkResult';
import { fileStem, fileStems, GRADES_CSV } from '../report/layout';
import { caseTable, difference } from './provenance';
import { ABOUT, namesHash, readRecord, RECORD_FILE, writeRecord, type BatchRecord } from './record';
import { lstatOrNone, notRegular, readChecked } from './shardFile';
import { formatShard, shardOf, WHOLE } from './shard';
import { summaryEntry } from './summary';
import type { ReportTerms } from '../report/causes';

/**
 * What a merge copies into the gradebook: each submission's result and page (an honest page is under
 * 1 MiB, a result tens of KiB), all of them together. Depth: nothing is walked into.
 */
export const MERGE_LIMITS: WalkCaps = { entries: 200_000, depth: 0, fileBytes: 16 * 1024 ** 2, totalBytes: 8 * 1024 ** 3 };

const MERGE_FIX = {
  entries: 'merge the course in parts, each a set of shards of its own',
  depth: 'regrade that shard',
  fileBytes: 'regrade that shard: its grader writes no file this large',
  totalBytes: 'merge the course in parts, each a set of shards of its own',
};

/** The shard outputs cannot be merged; the message names the folder or submission at fault. */
export class MergeError extends Error {
  override name = 'MergeError';
}

export interface MergeOutcome {
  record: BatchRecord;
  rows: GradebookRow[];
  entries: SummaryEntry[];
  results: Map<string, GradescopeResults>;
  /** The roster's verdict, when canvas.csv was written. */
  canvas?: CanvasExport;
}

interface Input {
  dir: string;
  record: BatchRecord;
}

function readInputs(dirs: readonly string[], cases: readonly GradedCase[]): Input[] {
  if (dirs.length === 0) throw new MergeError('no shard outputs given: pass the --out folder of every `npm run grade -- --shard i/n`');
  return dirs.map((dir) => {
    const record = readRecord(dir);
    if (typeof record === 'string') throw new MergeError(record);
    if (record.interrupted) {
      throw new MergeError(`${dir} is a shard whose grading was interrupted (${record.interrupted.graded} of ${record.interrupted.of} graded): run its command again to finish it`);
    }
    for (const name of record.submissions) {
      const bad = badName(name);
      if (bad) throw new MergeError(`${dir}/${RECORD_FILE} lists ${bad}: it is not a batch this grader wrote; grade that shard again`);
      // Where a submission's files are is decided by its name alone (layout.ts): a shard that says otherwise was laid out by another grader.
      if (record.files[name] !== fileStem(name)) {
        throw new MergeError(`${dir} keeps the files of ${oneLine(name)} under another name than this grader does: grade that shard again with this checkout`);
      }
    }
    // The case table is this checkout's, not what the shard says it was: points come from it.
    const table = caseTable(record.graded_with.options.hidden ? cases : visibleOf(cases));
    if (JSON.stringify(record.case_table) !== JSON.stringify(table)) {
      // The assignment's parts switched otherwise is the usual cause: a record that names its parts says which it graded.
      const parts = record.graded_with.parts ? ` (its parts: ${record.graded_with.parts.join(', ')})` : '';
      throw new MergeError(`${dir} was graded with another case table than this checkout's${parts}: merge with the checkout that graded it, or regrade`);
    }
    return { dir, record };
  });
}

/** The record most inputs share (the first input's on a tie): the odd one out is the culprit. */
function majority(inputs: readonly Input[], key: (record: BatchRecord) => string): Input {
  const counts = new Map<string, number>();
  for (const { record } of inputs) counts.set(key(record), (counts.get(key(record)) ?? 0) + 1);
  return inputs.reduce((best, input) => (counts.get(key(input.record))! > counts.get(key(best.record))! ? input : best));
}

/** Every input graded alike, split alike from the same folder, and the shards 1…n each exactly once. */
function checkShards(inputs: readonly Input[]): void {
  const usual = majority(inputs, (r) => JSON.stringify(r.graded_with));
  for (const { dir, record } of inputs) {
    const differs = difference(record.graded_with, usual.record.graded_with);
    if (differs) throw new MergeError(`${dir} was graded with ${differs}, unlike ${usual.dir}: grade every shard with the same checkout and flags`);
  }
  const split = majority(inputs, (r) => `${r.shard.count} ${r.batch.sha256}`);
  for (const { dir, record } of inputs) {
    if (record.shard.count !== split.record.shard.count) {
      throw new MergeError(`${dir} is shard ${formatShard(record.shard)} but ${split.dir} is shard ${formatShard(split.record.shard)}: ` +
        'every shard must split the batch the same number of ways');
    }
    if (record.batch.sha256 !== split.record.batch.sha256) {
      throw new MergeError(`${dir} was cut from another submissions folder (${record.batch.submissions} submissions) than ${split.dir} ` +
        `(${split.record.batch.submissions}): grade every shard from the same submissions`);
    }
  }
  const byIndex = new Map<number, string>();
  for (const { dir, record } of inputs) {
    const other = byIndex.get(record.shard.index);
    if (other !== undefined) throw new MergeError(`shard ${formatShard(record.shard)} is given twice: ${other} and ${dir}; pass each shard once`);
    byIndex.set(record.shard.index, dir);
  }
  const count = inputs[0].record.shard.count;
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length) {
    throw new MergeError(`shard ${missing.map((i) => `${i}/${count}`).join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing: ` +
      `grade ${missing.length > 1 ? 'them' : 'it'} with --shard and pass ${missing.length > 1 ? 'their' : 'its'} --out folder too`);
  }
}

/** Each submission in exactly one shard, the one its name hashes to, with a result graded as its shard was. */
interface Found {
  input: Input;
  results: GradescopeResults;
  /** The result's bytes as the shard wrote them. */
  bytes: Buffer;
}

/** A result's bytes and what they say, or why they are not a result. */
function readResult(file: string, regrade: string): { bytes: Buffer; results: GradescopeResults } {
  const stat = lstatOrNone(file);
  if (!stat) throw new MergeError(`${oneLine(file)} is missing or unreadable: ${regrade}`);
  const kind = notRegular(stat);
  if (kind) throw new MergeError(`${oneLine(file)} is ${kind}, not a file a grader writes: ${regrade}`);
  if (stat.size > RESULT_BYTES) throw new MergeError(`${oneLine(file)} is ${stat.size} bytes, over the ${RESULT_BYTES / 1024 ** 2} MiB a result can be: ${regrade}`);
  const bytes = readChecked(file, stat, RESULT_BYTES);
  if (bytes === 'changed') throw new MergeError(`${oneLine(file)} changed while it was read: ${regrade}`);
  try {
    const results = JSON.parse(bytes.toString('utf8')) as GradescopeResults;
    if (typeof results?.extra_data?.cases === 'object' && results.extra_data.cases !== null) return { bytes, results };
  } catch {
    // said below
  }
  throw new MergeError(`${oneLine(file)} is missing or unreadable: ${regrade}`);
}

function collectResults(inputs: readonly Input[]): Map<string, Found> {
  const found = new Map<string, Found>();
  for (const input of inputs) {
    const { dir, record } = input;
    for (const name of record.submissions) {
      const twice = found.get(name);
      if (twice) throw new MergeError(`submission ${oneLine(name)} was graded twice: in ${twice.input.dir} and in ${dir}; regrade one of those shards`);
      if (shardOf(name, record.shard.count) !== record.shard.index) {
        throw new MergeError(`submission ${oneLine(name)} is in ${dir} (shard ${formatShard(record.shard)}) but belongs to shard ` +
          `${shardOf(name, record.shard.count)}/${record.shard.count}: regrade that folder with this grader`);
      }
      const file = path.join(dir, resultsFile(name));
      const { bytes, results } = readResult(file, `regrade shard ${formatShard(record.shard)}`);
      const problem = resultProblem(results, record.case_table, record.graded_with.options.late_policy);
      if (problem) throw new MergeError(`${oneLine(file)} is not a result this grader wrote: ${problem}; regrade shard ${formatShard(record.shard)}`);
      const recorded = results.extra_data.graded_with;
      const differs = recorded ? difference(recorded, record.graded_with) : 'a grader that did not record how';
      if (differs) {
        throw new MergeError(`${oneLine(file)} was graded with ${differs}, unlike the rest of its shard: ` +
          `regrade shard ${formatShard(record.shard)}`);
      }
      found.set(name, { input, results, bytes });
    }
  }
  const first = inputs[0].record;
  const names = [...found.keys()];
  if (names.length !== first.batch.submissions || namesHash(names) !== first.batch.sha256) {
    throw new MergeError(`the shards hold ${names.length} submissions but their folder had ${first.batch.submissions}: ` +
      'a shard output lacks some of its submissions; regrade it');
  }
  return found;
}

/** Each submission's page, checked and charged to the budget with its result before anything is written: the page's stat, when it has one. */
function plannedCopies(names: readonly string[], found: ReadonlyMap<string, Found>, limits: WalkCaps): Map<string, fs.Stats | undefined> {
  const budget = new WalkBudget(limits, { whole: 'the merge', file: 'file', fix: MERGE_FIX }, (message) => new MergeError(message));
  const pages = new Map<string, fs.Stats | undefined>();
  for (const name of names) {
    const { input, bytes } = found.get(name)!;
    const result = oneLine(path.join(input.dir, resultsFile(name)));
    budget.entry(result);
    budget.file(result, bytes.length);
    const page = path.join(input.dir, pageFile(name));
    const stat = lstatOrNone(page);
    if (stat) {
      const kind = notRegular(stat);
      if (kind) throw new MergeError(`${oneLine(page)} is ${kind}, not a file a grader writes: regrade shard ${formatShard(input.record.shard)}`);
      budget.entry(oneLine(page));
      budget.file(oneLine(page), stat.size);
    }
    pages.set(name, stat);
  }
  return pages;
}

/**
 * `cases`: the assignment's every case (a shard's record must name this checkout's table); `terms`:
 * what the report and grades-long.csv say of the assignment (its functions, its causes' words).
 * `exportOptions`, not `exports`: CommonJS output reads every exported constant (MERGE_LIMITS) as
 * exports.NAME, which a parameter of that name hides.
 */
export function mergeShards(
  dirs: readonly string[], outDir: string, cases: readonly GradedCase[], terms: ReportTerms, exportOptions: CourseExportOptions = {}, limits = MERGE_LIMITS,
): MergeOutcome {
  const inputs = readInputs(dirs, cases);
  const target = path.resolve(outDir);
  const clash = inputs.find(({ dir }) => path.resolve(dir) === target);
  if (clash) throw new MergeError(`--out ${outDir} is one of the shard outputs: merge into a folder of its own`);
  checkShards(inputs);
  const found = collectResults(inputs);

  const first = inputs[0].record;
  // As the whole run lists them: sorted the same way gradeBatch sorts the folder.
  const names = [...found.keys()].sort();
  const results = new Map(names.map((name) => [name, found.get(name)!.results]));
  // Everything is built before anything is written: a refusal or a failure leaves the folder as it was.
  const rows = names.map((name) => rowFromGradescope(name, results.get(name)!));
  const csv = gradebookCsv(rows, first.case_table.map((c) => c.name), { late: first.graded_with.options.late_policy !== undefined });
  const pages = plannedCopies(names, found, limits);
  const report = batchReportHtml(names.map((name) => ({ name, results: results.get(name)!, page: pages.get(name) && pageFile(name) })), first.case_table, terms);
  const exported = courseExports(names, results, rows, first.case_table, terms, exportOptions);
  fs.mkdirSync(path.join(outDir, SUBMISSIONS_DIR), { recursive: true });
  for (const name of names) {
    const { input, bytes } = found.get(name)!;
    // Copied as written: a merged folder holds the very files the shards graded.
    fs.writeFileSync(path.join(outDir, resultsFile(name)), bytes);
    const page = path.join(input.dir, pageFile(name));
    const stat = pages.get(name);
    const copy = stat && readChecked(page, stat, limits.fileBytes);
    if (copy === 'changed') throw new MergeError(`${oneLine(page)} changed while it was merged: regrade shard ${formatShard(input.record.shard)} and merge again`);
    if (copy) fs.writeFileSync(path.join(outDir, pageFile(name)), copy);
    else fs.rmSync(path.join(outDir, pageFile(name)), { force: true });
  }
  writeFileAtomic(path.join(outDir, GRADES_CSV), csv);
  writeFileAtomic(path.join(outDir, REPORT_FILE), report);
  for (const [file, contents] of exported.files) writeFileAtomic(path.join(outDir, file), contents);
  const record: BatchRecord = {
    about: ABOUT,
    shard: WHOLE,
    batch: first.batch,
    submissions: names,
    graded_with: first.graded_with,
    case_table: first.case_table,
    fixtures: first.fixtures,
    files: fileStems(names),
  };
  writeRecord(outDir, record);
  return { record, rows, entries: names.map((name) => summaryEntry(name, results.get(name)!)), results, canvas: exported.canvas };
}
