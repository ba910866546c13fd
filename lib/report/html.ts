/**
 * The HTML reports' shared frame: escaping and a self-contained page. A page loads nothing: no
 * script, stylesheet, font or image from anywhere, and its Content-Security-Policy says so to the
 * browser, so a string that escaped escaping still could neither run nor call out. The one script
 * a page may run (the batch report's grid) is ours, inline, and allowed by its hash alone.
 */

import { createHash } from 'node:crypto';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an element's content or a quoted attribute. Every student-controlled string goes through here. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** A link to a file beside the page, for a name that may hold any character a folder name can. */
export function fileHref(fileName: string): string {
  // encodeURIComponent also covers ':', which would otherwise read as a URL scheme ("a:b.html");
  // each path segment on its own, so that a folder's '/' stays a separator.
  return escapeHtml(fileName.split('/').map(encodeURIComponent).join('/'));
}

// Inline styles and SVG are all a page needs; 'none' for the rest blocks scripts and every fetch.
const POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const STYLE = `
:root { color-scheme: light; --fg: #1d2330; --muted: #5b6475; --line: #d8dce3; --bg-alt: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 24px 32px 48px; max-width: 1280px; color: var(--fg); background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", "Liberation Sans", sans-serif; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; } h3 { font-size: 15px; margin: 0 0 2px; }
p { margin: 6px 0; } .muted, .note { color: var(--muted); } .note { font-size: 12px; }
code, pre { font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; }
pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid var(--line); font-size: 13px; }
th { background: var(--bg-alt); font-weight: 600; } td.num, th.num { text-align: right; white-space: nowrap; }
td.test { white-space: nowrap; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
.status { display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 12px; font-weight: 600; white-space: nowrap; }
.status.passed { background: #dcf3e2; color: #14632f; } .status.failed, .status.error, .status.crashed, .status.timeout,
.status.refused { background: #fbe1e1; color: #8a1c1c; } .status.not_implemented { background: #fdf1d3; color: #7a5200; }
.mistake { display: inline-block; font: 11px ui-monospace, "DejaVu Sans Mono", monospace; background: #eef0f7; color: #333c5a;
  padding: 0 6px; border-radius: 4px; margin-right: 4px; }
.case { border: 1px solid var(--line); border-radius: 6px; padding: 12px 14px; margin: 14px 0; }
.panels { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-start; margin-top: 8px; }
figure { margin: 0; } figcaption { font-weight: 600; font-size: 13px; margin-bottom: 2px; }
.aside { flex: 1 1 200px; min-width: 200px; max-width: 420px; background: var(--bg-alt); border-radius: 6px; padding: 8px 12px; }
.warning { border: 1px solid #d9822b; background: #fff4e5; border-radius: 6px; padding: 8px 10px; }
.missing { width: 260px; min-height: 120px; border: 1px dashed #c9ced8; border-radius: 6px; padding: 10px; color: var(--muted); }
svg text { font-family: system-ui, "DejaVu Sans", "Liberation Sans", sans-serif; fill: #333; }
a { color: #1a56c4; }
.mask-case { max-width: 372px; } table.numbers { width: auto; } table.numbers td, table.numbers th { padding: 3px 14px; }
`;

/**
 * A whole page: `body` is HTML this project wrote, with student text already escaped. `script`,
 * when given, is one script of ours, fixed text: the policy allows it by its sha256 and no other.
 */
export function htmlPage(title: string, body: string, script?: string): string {
  const policy = script ? `${POLICY}; script-src 'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'` : POLICY;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    body,
    ...(script ? [`<script>${script}</script>`] : []),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
