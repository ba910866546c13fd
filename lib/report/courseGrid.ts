/**
 * The course at a glance, in the batch report: a submission × test grid (status and points in
 * each cell, the cause and the reason on hover and on click), sortable by any column and
 * filterable by name, failed test, status and cause. The data rides in the page as JSON (every
 * `<` escaped, so no submission's text can close its element) and one inline script of ours
 * (courseGridScript.ts) draws the grid: the page's Content-Security-Policy allows that script by
 * its hash and nothing else, so the page still loads nothing and runs nothing a submission wrote.
 */
import type { CaseStatus } from '../model/result';
import type { GradedCase } from '../assignment/cases';
import type { FunctionSpec } from '../assignment/functions';
import type { CauseCount, ReportTerms } from './causes';
import { STATUS_WORDS, type GradescopeResults } from './gradescope';
import { fileHref } from './html';
import { apportionUnits, fromUnits, POINT_DECIMALS, shownScore, toUnits } from './points';

export { GRID_SCRIPT } from './courseGridScript';

export const STATUSES: readonly CaseStatus[] = ['passed', 'failed', 'error', 'timeout', 'crashed', 'not_implemented', 'refused'];

export interface GridRow {
  name: string;
  page?: string;
  results: GradescopeResults;
}

/**
 * A test's column head: its function's short name (FunctionSpec.short, short enough to read turned
 * on its side), then what sets the test apart, in words (`test_<id>_2d_mask_broadcast` is
 * `<short> · 2d mask broadcast`). The full name is the head's tooltip and the "who failed" filter's option.
 */
export function testLabel({ name, fn }: Pick<GradedCase, 'name' | 'fn'>, functions: readonly FunctionSpec[]): string {
  const short = functions.find((f) => f.id === fn)?.short ?? fn;
  const rest = name.replace(/^test_/, '').replace(fn, '').split('_').filter(Boolean).join(' ');
  return rest ? `${short} · ${rest}` : short;
}

const withoutStatusWord = (headline: string, status: CaseStatus) =>
  (headline.startsWith(`${STATUS_WORDS[status]}: `) ? headline.slice(STATUS_WORDS[status].length + 2) : headline);

/**
 * The JSON the script reads: short keys and index tables, as a 1,000-submission course is 25,000
 * cells. `causes` is the report's list of causes (causes.ts tallyCauses), in its order; a cell
 * names the set of them it has. Points are as grades.csv shows them (points.ts): a row's cells add
 * up to its points, and those less its late penalty (`late`: [points, penalty], or 0 without a
 * late policy) are its score.
 */
export function gridData(
  rows: readonly GridRow[], cases: readonly GradedCase[], terms: ReportTerms, causes: readonly CauseCount[], decimals: number = POINT_DECIMALS,
): string {
  const causeIndex = new Map(causes.map((c, i) => [c.id, i]));
  const sets: number[][] = [];
  const setIndex = new Map<string, number>();
  const reasons: string[] = [];
  const reasonIndex = new Map<string, number>();
  const intern = <T>(table: T[], index: Map<string, number>, key: string, value: T) => {
    let i = index.get(key);
    if (i === undefined) index.set(key, (i = table.push(value) - 1));
    return i;
  };
  const points = (units: number) => fromUnits(units, decimals);
  const maxima = apportionUnits(cases.map((c) => c.points), undefined, decimals);
  const data = rows.map(({ name, page, results }) => {
    const byName = new Map(results.tests.map((t) => [t.name, t]));
    const causesOf = terms.causes.testCauses(results);
    const late = results.extra_data.late;
    const graded = cases.map((c) => (results.extra_data.cases[c.name] && byName.has(c.name) ? byName.get(c.name)!.score : undefined));
    const shown = shownScore(graded, late?.before ?? results.score, results.score, decimals);
    const cells = cases.map((c, i) => {
      const status = results.extra_data.cases[c.name];
      const test = byName.get(c.name);
      if (!status || !test) return null;
      const ids = (causesOf.get(c.name) ?? []).flatMap((id) => (causeIndex.has(id) ? [causeIndex.get(id)!] : []));
      const set = ids.length ? intern(sets, setIndex, ids.join(','), ids) : -1;
      const carried = results.extra_data.carried?.includes(c.name) ?? false;
      // The status has a column of its own: its word is not repeated before the reason.
      const firstLine = status === 'passed' && !carried ? '' : withoutStatusWord(test.output.split('\n')[0] ?? '', status).slice(0, 300);
      return [STATUSES.indexOf(status), points(shown.cells[i]!), set, firstLine ? intern(reasons, reasonIndex, firstLine, firstLine) : -1];
    });
    return [name, page ? fileHref(page) : '', points(shown.total), points(toUnits(results.extra_data.max_score, decimals)), cells,
      late ? [points(shown.points), points(shown.penalty)] : 0];
  });
  const json = JSON.stringify({
    tests: cases.map((c, i) => [c.name, points(maxima[i]!), c.hidden ? 1 : 0, testLabel(c, terms.functions)]),
    statuses: STATUSES,
    causes: causes.map((c) => [c.id, c.submissions.length]),
    sets,
    reasons,
    late: rows.some((r) => r.results.extra_data.late) ? 1 : 0,
    rows: data,
  });
  // JSON in an HTML element: '<' as \u003c, so '</script>' or '<!--' in a name or reason cannot end it.
  return json.replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** The grid's controls and table; the script fills them. */
export const GRID_HTML = `
<div class="grid-controls">
  <label>name <input id="f-name" type="search" placeholder="contains…"></label>
  <label>who failed <select id="f-test"><option value="">any test</option></select></label>
  <label>status <select id="f-status"><option value="">any</option><option value="notpassed">not passed</option></select></label>
  <label>cause <select id="f-cause"><option value="">any</option></select></label>
  <span id="f-count" class="muted"></span>
</div>
<div id="cell-detail" class="muted">Hover a cell for its status and cause; click it to keep them here. Click a column's head to sort by it. Rows are drawn as you scroll: to find a submission, filter by its name.</div>
<div class="grid-wrap"><table id="grid"><thead></thead><tbody></tbody></table></div>
`;

// One line per row (a long reason ends in "…"; the whole of it is the cell's tooltip and goes to
// the box above on a click), so a screen holds dozens of rows. Test heads are turned on their
// side and as tall as the longest: none is cut.
export const GRID_STYLE = `
.grid-controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin: 8px 0; }
.grid-controls select, .grid-controls input { font: inherit; }
#cell-detail { min-height: 2.8em; margin: 4px 0 8px; padding: 6px 10px; background: var(--bg-alt); border-radius: 6px; }
.grid-wrap { overflow: auto; max-height: 85vh; border: 1px solid var(--line); }
#grid { width: auto; border-collapse: separate; border-spacing: 0; }
#grid th { position: sticky; top: 0; z-index: 1; cursor: pointer; white-space: nowrap; font-size: 11px; vertical-align: bottom; }
#grid th.t { padding: 6px 3px; text-align: center; }
#grid th.t span { writing-mode: vertical-rl; transform: rotate(180deg); }
#grid th.t.h span { font-style: italic; }
#grid td { font-size: 11px; line-height: 16px; padding: 1px 5px; text-align: right; white-space: nowrap; }
#grid td.n { text-align: left; } #grid td.why { text-align: left; }
#grid td.why div { max-width: 560px; overflow: hidden; text-overflow: ellipsis; }
#grid td.c { cursor: pointer; }
#grid .cause { font-family: ui-monospace, "DejaVu Sans Mono", monospace; background: #eef0f7; color: #333c5a; padding: 0 4px; border-radius: 3px; }
.s0 { background: #dcf3e2; } .s1 { background: #fbe1e1; } .s2, .s4 { background: #f7c8c8; } .s3 { background: #f3d0b5; }
.s5 { background: #fdf1d3; } .s6 { background: #e3e6ee; }
`;
