/**
 * The grid's script (courseGrid.ts): our code only, fixed text (its hash goes into the page's
 * policy). It reads the grid's JSON, renders with escaped strings, and redraws on each filter or
 * sort, drawing rows as they come into view. A row says each cell's cause once: the cause's id, then
 * the test's reason, which leads with the diagnosis when there is one (the cause's words are in the
 * report's list of causes).
 */
export const GRID_SCRIPT = `(() => {
  const D = JSON.parse(document.getElementById('grid-data').textContent);
  D.rows.forEach((r, i) => { r[6] = i; });
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  const pts = (x) => String(Math.round(x * 1e6) / 1e6);
  const $ = (id) => document.getElementById(id);
  const fTest = $('f-test'), fStatus = $('f-status'), fCause = $('f-cause'), fName = $('f-name');
  D.tests.forEach((t, i) => fTest.insertAdjacentHTML('beforeend', '<option value="' + i + '">' + esc(t[0]) + '</option>'));
  D.statuses.forEach((s, i) => fStatus.insertAdjacentHTML('beforeend', '<option value="' + i + '">' + esc(s) + '</option>'));
  // In the order of the report's list of causes: most submissions first.
  D.causes.forEach((c, i) => fCause.insertAdjacentHTML('beforeend', '<option value="' + i + '">' + esc(c[0]) + ' (' + c[1] + ')</option>'));
  let sortKey = 'name', sortDir = 1;
  const matches = (cell) => {
    if (!cell) return false;
    const st = fStatus.value, ca = fCause.value;
    if (st === 'notpassed' ? cell[0] === 0 : st !== '' && cell[0] !== Number(st)) return false;
    return ca === '' || (cell[2] >= 0 && D.sets[cell[2]].includes(Number(ca)));
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
    if (sortKey === 'points') return r[5] ? r[5][0] : r[2];
    if (sortKey === 'penalty') return r[5] ? r[5][1] : 0;
    const cell = r[4][Number(sortKey)];
    return cell ? cell[1] * 100 - cell[0] : -1e9;
  };
  const collator = new Intl.Collator('en', { numeric: true });
  // A cell's status, points, causes and reason; with whose and which test it is, unless its row and column say so.
  const describe = (r, i, whose) => {
    const c = r[4][i];
    const who = whose ? esc(r[0]) + ' · ' + esc(D.tests[i][0]) + ': ' : '';
    if (!c) return who + 'not graded';
    const cause = c[2] >= 0 ? ' · ' + D.sets[c[2]].map((k) => '<span class="cause">' + esc(D.causes[k][0]) + '</span>').join(' ') : '';
    const reason = c[3] >= 0 ? ' — ' + esc(D.reasons[c[3]]) : '';
    return who + esc(D.statuses[c[0]]) + ', ' + pts(c[1]) + '/' + pts(D.tests[i][1]) + cause + reason;
  };
  const plain = (html) => html.replace(/<[^>]*>/g, '');
  // Rows are drawn in blocks as they scroll near the view: a course of any size costs its first
  // block at load, and every block is drawn by the same code when the reader gets there.
  const BLOCK = 40;
  const table = $('grid');
  let current = [], currentTest = '', rowHeight = 18;
  const rowHtml = (r) => {
    let tr = '<tr data-r="' + r[6] + '"><td class="n">' + (r[1] ? '<a class="submission" href="' + r[1] + '">' + esc(r[0]) + '</a>' : esc(r[0])) + '</td>';
    // With a late policy: the tests' points, the penalty, then the score, which is the one less the other.
    if (D.late) tr += '<td>' + (r[5] ? pts(r[5][0]) : '') + '</td><td>' + (r[5] ? (r[5][1] ? '−' + pts(r[5][1]) : '0') : '') + '</td>';
    tr += '<td>' + pts(r[2]) + '/' + pts(r[3]) + '</td>';
    if (currentTest !== '') { const why = describe(r, Number(currentTest), false); tr += '<td class="why"><div title="' + plain(why) + '">' + why + '</div></td>'; }
    r[4].forEach((c, i) => { tr += c ? '<td class="c s' + c[0] + '" data-t="' + i + '" title="' + plain(describe(r, i, true)) + '">' + pts(c[1]) + '</td>' : '<td class="c" data-t="' + i + '">–</td>'; });
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
    let head = '<tr><th data-k="name">submission' + arrow('name') + '</th>';
    if (D.late) head += '<th data-k="points">points' + arrow('points') + '</th><th data-k="penalty">late penalty' + arrow('penalty') + '</th>';
    head += '<th data-k="score">score' + arrow('score') + '</th>';
    if (test !== '') head += '<th>why it failed ' + esc(D.tests[Number(test)][0]) + '</th>';
    D.tests.forEach((t, i) => { head += '<th class="t' + (t[2] ? ' h' : '') + '" data-k="' + i + '" title="' + esc(t[0]) + (t[2] ? ' (hidden)' : '') + '"><span>' + esc(t[3]) + arrow(String(i)) + '</span></th>'; });
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
    const columns = 2 + (D.late ? 2 : 0) + (test !== '' ? 1 : 0) + D.tests.length;
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
    $('cell-detail').innerHTML = describe(D.rows[Number(td.parentElement.getAttribute('data-r'))], Number(td.getAttribute('data-t')), true);
  });
  render();
  document.body.setAttribute('data-grid', 'ready');
})();`;
