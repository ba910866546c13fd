/**
 * Why each test of a batch did not pass, as the batch report counts it: the known mistake its
 * diagnosis confirmed (the assignment's causes, lib/diagnosis/explain.ts), or else what its status and the grader's own
 * words say (a syntax error, a refused import, a timeout, no known cause…). Every test that did not
 * pass has at least one cause, so the report's list of causes and its grid's cause filter account
 * for every lost point, zero-point submissions included. Both read the one tally made here.
 *
 * A diagnosis may also say what its probes saw without naming a cause (the catalogue marks those
 * findings `observation`: "your attention's weights are not its probabilities", true of any wrong
 * attention): that restates the failure, so it is the student's feedback but no cause here, and
 * a test with nothing else counts as "no known cause".
 */
import type { FunctionSpec } from '../assignment/functions';
import { HARNESS_CAUSES, type Cause } from '../diagnosis/explain';
import { saidBy } from '../model/notRun';
import type { GradescopeResults } from './gradescope';

/** Cause ids in a diagnosis ('a|b' several fit, 'a+b' several at once). */
export const causeIds = (mistake: string): string[] => mistake.split(/[|+]/).filter(Boolean);

/**
 * The causes a status tells without a diagnosis. Their ids hold a space, which no catalogue id
 * (snake_case) does, so the two never meet.
 */
export const STATUS_CAUSES: Record<string, string> = {
  'not gradable': 'Nothing could be run: no index.ts, or the code could not be compiled. Every test scores 0.',
  refused: 'The submission imports or holds something a submission may not (another module, a link, a huge file), so it was not run. Every test scores 0.',
  'syntax error': 'A file of the submission does not parse, so it cannot be loaded. Every test scores 0.',
  'load error': 'The submission failed to load: an import of a file that is not in its folder, or its code threw while it was imported. Every test scores 0.',
  'not implemented': 'The stub still throws: the function was not attempted.',
  timeout: 'The function did not finish within the time limit per test (an endless loop, or far too slow); its other tests fail at once.',
  crashed: 'The process running the submission died (process.exit, a signal), or the function reached the memory limit; its other tests fail at once.',
  'error, no known cause': 'The function threw, or returned something that is not a tensor, and no known mistake fits.',
  'no known cause': 'The function returned wrong values and no known mistake fits.',
};

// The grader's own words that lead a test's output (lib/report/gradescope.ts puts the status word
// first; lib/grading/grade.ts and verdict.ts write the rest). Code that throws an error named to
// read the same gets its own tests listed as a load error: the list's words, not its points.
const LOAD_FAILED = /^Error: the submission failed to load: /;
/** A file that does not parse, or that nests too deep for a parser to read (lib/text/nesting.ts). */
const SYNTAX_ERROR = /^Error: the submission failed to load: (?:syntax error|nesting too deep) at /;

function testCauses(book: CauseBook, results: GradescopeResults): Map<string, string[]> {
  const causes = new Map<string, string[]>();
  const headline = new Map(results.tests.map((t) => [t.name, t.output.split('\n')[0] ?? '']));
  const own = (name: string, status: string) => statusCause(status, headline.get(name) ?? '', results);
  for (const [name, status] of Object.entries(results.extra_data.cases)) {
    if (status === 'passed') continue;
    const diagnosis = book.diagnosed(results.extra_data.diagnoses?.[name]);
    const by = saidBy(headline.get(name) ?? '');
    const sayer = by !== undefined && results.extra_data.cases[by] !== undefined ? by : name;
    causes.set(name, diagnosis ? [...new Set(causeIds(diagnosis))] : [own(sayer, results.extra_data.cases[sayer])]);
  }
  return causes;
}

function statusCause(status: string, headline: string, results: GradescopeResults): string {
  if (results.extra_data.submission_status === 'error') return 'not gradable';
  switch (status) {
    case 'refused':
      return 'refused';
    case 'not_implemented':
      return 'not implemented';
    case 'timeout':
      return 'timeout';
    case 'crashed':
      return 'crashed';
    case 'failed':
      return 'no known cause';
    default:
      if (SYNTAX_ERROR.test(headline)) return 'syntax error';
      return LOAD_FAILED.test(headline) ? 'load error' : 'error, no known cause';
  }
}

export interface CauseCount {
  id: string;
  words: string;
  /** The submissions with a test it caused, in the batch's order. */
  submissions: string[];
  /** How many tests it caused, over every submission. */
  tests: number;
  knockOn: boolean;
}

function tallyCauses(book: CauseBook, graded: readonly { name: string; results: GradescopeResults }[]): CauseCount[] {
  const seen = new Map<string, { submissions: Set<string>; tests: number }>();
  for (const { name, results } of graded) {
    for (const ids of testCauses(book, results).values()) {
      for (const id of ids) {
        const entry = seen.get(id) ?? { submissions: new Set<string>(), tests: 0 };
        entry.submissions.add(name);
        entry.tests++;
        seen.set(id, entry);
      }
    }
  }
  return [...seen.entries()]
    .map(([id, { submissions, tests }]) => ({ id, words: book.words(id), submissions: [...submissions], tests, knockOn: book.knockOn(id) }))
    .sort((a, b) => b.submissions.length - a.submissions.length || b.tests - a.tests || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The causes of a course's lost points as an assignment's diagnosis names them (Diagnoser.causes),
 * read by every report: their words, which of them are observations (no cause), which are a
 * knock-on of another function's failure, each test's causes and the course's tally.
 */
export class CauseBook {
  private readonly byId: ReadonlyMap<string, Cause>;

  constructor(causes: readonly Cause[] = []) {
    // The harness's own causes (a replay that answers otherwise, an output's facts) beside the assignment's.
    this.byId = new Map([...HARNESS_CAUSES, ...causes].map((c) => [c.id, c]));
  }

  /** What a cause says: the diagnosis's words, or a status's. */
  words(id: string): string {
    return this.byId.get(id)?.message ?? STATUS_CAUSES[id] ?? '';
  }

  /** A failure that only follows from another function's (multi-head failing because the attention it calls fails), not a cause of its own. */
  knockOn(id: string): boolean {
    return this.byId.get(id)?.knockOn === true;
  }

  /** A diagnosis ('a|b', 'a+b') with its observations left out: the causes it names, or undefined when it names none. */
  diagnosed(mistake: string | undefined): string | undefined {
    const kept = (mistake ?? '').split('|').map((group) => group.split('+').filter((id) => id && this.byId.get(id)?.observation !== true).join('+')).filter(Boolean);
    return kept.length ? kept.join('|') : undefined;
  }

  /**
   * Each test's causes, by test name, for every test that did not pass (passed ones and carried ones
   * have none). A test that did not run because the submission could not, and names the test that
   * says why (lib/model/notRun.ts), has that test's cause: a syntax error is one in all of them.
   */
  testCauses(results: GradescopeResults): Map<string, string[]> {
    return testCauses(this, results);
  }

  /**
   * Every cause in the batch, most submissions first (then most tests, then by id): the order of
   * the report's list and of its grid's cause filter.
   */
  tally(graded: readonly { name: string; results: GradescopeResults }[]): CauseCount[] {
    return tallyCauses(this, graded);
  }

  /** A diagnosed cause as a cell: its stable id, then its words ("scale_missing: Your scores are not scaled…"). */
  cell(mistake: string | undefined): string {
    return mistake ? `${mistake}: ${causeIds(mistake).map((id) => this.words(id)).join(' Or: ')}` : '';
  }
}

/** What a course's reports say of its assignment: each function's short name (column heads), the causes' words, its title. */
export interface ReportTerms {
  functions: readonly FunctionSpec[];
  causes: CauseBook;
  /** The report's heading before its count of submissions: the assignment's page title. */
  title: string;
}
