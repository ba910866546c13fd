/**
 * The course at a glance, in the batch report: a submission × test grid (status and points in
 * each cell, the cause and the reason on hover and on click), sortable by any column and
 * filterable by name, failed test, status and cause. The data rides in the page as JSON (every
 * `<` escaped, so no submission's text can close its element) and one inline script of ours draws
 * the grid: the page's Content-Security-Policy allows that script by its hash and nothing else,
 * so the page still loads nothing and runs nothing a submission wrote.
 */
import { MISTAKES } from '../diagnosis/catalogue';
import type { CaseStatus } from '../grading/result';
import type { GradedCase } from '../../tests/cases';
import type { GradescopeResults } from './gradescope';
import { fileHref } from './html';

export const STATUSES: readonly CaseStatus[] = ['passed', 'failed', 'error', 'timeout', 'crashed', 'not_implemented', 'refused'];

/** Multi-head tests failing because the submission's own attention fails: a knock-on of that failure, not a cause of its own. */
export const KNOCK_ON = new Set(['attention_broken']);

export interface GridRow {
  name: string;
  page?: string;
  results: GradescopeResults;
}

/** Cause ids in a diagnosis ('a|b' several fit, 'a+b' several at once). */
export const causeIds = (mistake: string): string[] => mistake.split(/[|+]/).filter(Boolean);

export const causeWords = (id: string): string => MISTAKES.find((m) => m.id === id)?.message ?? '';

/** The JSON the script reads: short keys and index tables, as a 1,000-submission course is 25,000 cells. */
export function gridData(rows: readonly GridRow[], cases: readonly GradedCase[]): string {
  const causes: string[] = [];
  const causeIndex = new Map<string, number>();
  const reasons: string[] = [];
  const reasonIndex = new Map<string, number>();
  const intern = (table: string[], index: Map<string, number>, value: string) => {
    let i = index.get(value);
    if (i === undefined) index.set(value, (i = table.push(value) - 1));
    return i;
  };
  const data = rows.map(({ name, page, results }) => {
    const byName = new Map(results.tests.map((t) => [t.name, t]));
    const cells = cases.map((c) => {
      const status = results.extra_data.cases[c.name];
      const test = byName.get(c.name);
      if (!status || !test) return null;
      const diagnosis = results.extra_data.diagnoses?.[c.name];
      const cause = diagnosis ? intern(causes, causeIndex, diagnosis) : -1;
      const carried = results.extra_data.carried?.includes(c.name) ?? false;
      const firstLine = status === 'passed' && !carried ? '' : (test.output.split('\n')[0] ?? '').slice(0, 300);
      return [STATUSES.indexOf(status), test.score, cause, firstLine ? intern(reasons, reasonIndex, firstLine) : -1];
    });
    return [name, page ? fileHref(page) : '', results.score, results.extra_data.max_score, cells];
  });
  const json = JSON.stringify({
    tests: cases.map((c) => [c.name, c.points, c.hidden ? 1 : 0]),
    statuses: STATUSES,
    causes: causes.map((c) => [c, causeIds(c).map(causeWords).join(' Or: ')]),
    reasons,
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

export const GRID_STYLE = `
.grid-controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin: 8px 0; }
.grid-controls select, .grid-controls input { font: inherit; }
#cell-detail { min-height: 2.8em; margin: 4px 0 8px; padding: 6px 10px; background: var(--bg-alt); border-radius: 6px; }
.grid-wrap { overflow: auto; max-height: 80vh; border: 1px solid var(--line); }
#grid { width: auto; border-collapse: separate; border-spacing: 0; }
#grid th { position: sticky; top: 0; z-index: 1; cursor: pointer; white-space: nowrap; font-size: 11px; }
#grid th.t { writing-mode: vertical-rl; transform: rotate(180deg); height: 300px; vertical-align: bottom; }
#grid td { font-size: 11px; padding: 2px 5px; text-align: right; white-space: nowrap; }
#grid td.n { text-align: left; } #grid td.why { text-align: left; white-space: normal; min-width: 320px; }
#grid td.c { cursor: pointer; }
.s0 { background: #dcf3e2; } .s1 { background: #fbe1e1; } .s2, .s4 { background: #f7c8c8; } .s3 { background: #f3d0b5; }
.s5 { background: #fdf1d3; } .s6 { background: #e3e6ee; }
`;

/**
 * The grid's script: our code only, fixed text (its hash goes into the page's policy). It reads the
 * JSON above, renders with escaped strings, and redraws on each filter or sort, drawing rows as
 * they come into view.
 */
export const GRID_SCRIPT = `(() => {
  const D = JSON.parse(document.getElementById('grid-data').textContent);
  D.rows.forEach((r, i) => { r[5] = i; });
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  const pts = (x) => String(Math.round(x * 1e6) / 1e6);
  const $ = (id) => document.getElementById(id);
  const fTest = $('f-test'), fStatus = $('f-status'), fCause = $('f-cause'), fName = $('f-name');
  D.tests.forEach((t, i) => fTest.insertAdjacentHTML('beforeend', '<option value="' + i + '">' + esc(t[0]) + '</option>'));
  D.statuses.forEach((s, i) => fStatus.insertAdjacentHTML('beforeend', '<option value="' + i + '">' + esc(s) + '</option>'));
  const causeCount = D.causes.map(() => 0);
  for (const r of D.rows) { const seen = new Set(); for (const c of r[4]) if (c && c[2] >= 0 && !seen.has(c[2])) { seen.add(c[2]); causeCount[c[2]]++; } }
  D.causes.forEach((c, i) => fCause.insertAdjacentHTML('beforeend', '<option value="' + i + '">' + esc(c[0]) + ' (' + causeCount[i] + ')</option>'));
  let sortKey = 'name', sortDir = 1;
  const matches = (cell) => {
    if (!cell) return false;
    const st = fStatus.value, ca = fCause.value;
    if (st === 'notpassed' ? cell[0] === 0 : st !== '' && cell[0] !== Number(st)) return false;
    return ca === '' || cell[2] === Number(ca);
  };
  const shown = () => {
    const name = fName.value.toLowerCase();
    const test = fTest.value;
    return D.rows.filter((r) => {
      if (name && !r[0].toLowerCase().includes(name)) return false;
      if (test !== '') { const cell = r[4][Number(test)]; return !!cell && cell[0] !== 0 && matches(cell); }
      if (fStatus.value === '' && fCause.value === '') return true;
      return r[4].some(matches);
    });
  };
  const key = (r) => {
    if (sortKey === 'name') return r[0];
    if (sortKey === 'score') return r[2];
    const cell = r[4][Number(sortKey)];
    return cell ? cell[1] * 100 - cell[0] : -1e9;
  };
  const collator = new Intl.Collator('en', { numeric: true });
  const describe = (r, i) => {
    const c = r[4][i];
    if (!c) return esc(D.tests[i][0]) + ': not graded';
    const cause = c[2] >= 0 ? ' · ' + esc(D.causes[c[2]][0]) + ': ' + esc(D.causes[c[2]][1]) : '';
    const reason = c[3] >= 0 ? ' — ' + esc(D.reasons[c[3]]) : '';
    return esc(r[0]) + ' · ' + esc(D.tests[i][0]) + ': ' + esc(D.statuses[c[0]]) + ', ' + pts(c[1]) + '/' + pts(D.tests[i][1]) + cause + reason;
  };
  // Rows are drawn in blocks as they scroll near the view: a course of any size costs its first
  // block at load, and every block is drawn by the same code when the reader gets there.
  const BLOCK = 40;
  const table = $('grid');
  let current = [], currentTest = '', rowHeight = 18;
  const rowHtml = (r) => {
    let tr = '<tr data-r="' + r[5] + '"><td class="n">' + (r[1] ? '<a class="submission" href="' + r[1] + '">' + esc(r[0]) + '</a>' : esc(r[0])) + '</td><td>' + pts(r[2]) + '/' + pts(r[3]) + '</td>';
    if (currentTest !== '') tr += '<td class="why">' + describe(r, Number(currentTest)) + '</td>';
    r[4].forEach((c, i) => { tr += c ? '<td class="c s' + c[0] + '" data-t="' + i + '" title="' + describe(r, i) + '">' + pts(c[1]) + '</td>' : '<td class="c" data-t="' + i + '">–</td>'; });
    return tr + '</tr>';
  };
  const drawBlock = (tb) => {
    const b = Number(tb.getAttribute('data-b'));
    tb.innerHTML = current.slice(b * BLOCK, (b + 1) * BLOCK).map(rowHtml).join('');
    tb.classList.remove('pending');
  };
  const observer = new IntersectionObserver((seen) => {
    for (const e of seen) if (e.isIntersecting && e.target.classList.contains('pending')) { observer.unobserve(e.target); drawBlock(e.target); }
  }, { root: table.parentElement, rootMargin: '1200px 0px' });
  const render = () => {
    const rows = shown();
    rows.sort((a, b) => { const x = key(a), y = key(b); return sortDir * (typeof x === 'string' ? collator.compare(x, y) : x - y) || collator.compare(a[0], b[0]); });
    const test = fTest.value;
    const arrow = (k) => (sortKey === k ? (sortDir > 0 ? ' ▲' : ' ▼') : '');
    let head = '<tr><th data-k="name">submission' + arrow('name') + '</th><th data-k="score">score' + arrow('score') + '</th>';
    if (test !== '') head += '<th>why it failed ' + esc(D.tests[Number(test)][0]) + '</th>';
    D.tests.forEach((t, i) => { head += '<th class="t" data-k="' + i + '" title="' + esc(t[0]) + '">' + esc(t[0].replace(/^test_/, '')) + (t[2] ? ' (hidden)' : '') + arrow(String(i)) + '</th>'; });
    table.tHead.innerHTML = head + '</tr>';
    current = rows;
    currentTest = test;
    observer.disconnect();
    for (const tb of Array.from(table.tBodies)) tb.remove();
    const first = table.createTBody();
    first.setAttribute('data-b', '0');
    drawBlock(first);
    // The blocks not drawn yet hold their place at the height of the rows just drawn, so the
    // scroll bar is the course's from the start.
    if (rows.length > BLOCK) rowHeight = first.offsetHeight / BLOCK || rowHeight;
    const columns = 2 + (test !== '' ? 1 : 0) + D.tests.length;
    for (let b = 1; b * BLOCK < rows.length; b++) {
      const tb = table.createTBody();
      tb.setAttribute('data-b', String(b));
      tb.className = 'pending';
      const td = tb.insertRow().insertCell();
      td.colSpan = columns;
      td.style.height = Math.round(Math.min(BLOCK, rows.length - b * BLOCK) * rowHeight) + 'px';
      observer.observe(tb);
    }
    $('f-count').textContent = rows.length + ' of ' + D.rows.length + ' submissions';
  };
  for (const el of [fTest, fStatus, fCause]) el.addEventListener('change', render);
  fName.addEventListener('input', render);
  table.tHead.addEventListener('click', (e) => {
    const th = e.target.closest('th[data-k]');
    if (!th) return;
    const k = th.getAttribute('data-k');
    sortDir = sortKey === k ? -sortDir : (k === 'name' ? 1 : -1);
    sortKey = k;
    render();
  });
  table.addEventListener('click', (e) => {
    const td = e.target.closest('tbody td[data-t]');
    if (!td) return;
    $('cell-detail').innerHTML = describe(D.rows[Number(td.parentElement.getAttribute('data-r'))], Number(td.getAttribute('data-t')));
  });
  render();
  document.body.setAttribute('data-grid', 'ready');
})();`;
