import type { RunResult } from '../result-types.ts';
import { renderSummary } from './render-text.ts';
import type { ReportTable } from './table.ts';

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:1.5rem}table{border-collapse:collapse;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.3rem .5rem;vertical-align:top;white-space:pre-wrap;max-width:28rem}
th{background:#f3f3f3}tr.fail td:last-child{background:#fdd}tr.pass td:last-child{background:#dfd}tr.skip td:last-child{background:#eee}`;

/** A standalone page; every value from a run (model outputs included) is escaped. */
export function renderHtml(runs: readonly RunResult[], tables: readonly ReportTable[]): string {
  const title = `tracecheck eval: ${runs.map((r) => r.runId).join(', ')}`;
  const section = (table: ReportTable): string => {
    const head = `<tr>${table.header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>`;
    const body = table.rows
      .map((r, i) => `<tr class="${table.statuses[i]}">${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`)
      .join('\n');
    return `<h2>${escapeHtml(table.title)}</h2>\n<table><thead>${head}</thead><tbody>\n${body}\n</tbody></table>`;
  };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(renderSummary(runs).trim())}</p>
${tables.map(section).join('\n')}
</body></html>
`;
}
