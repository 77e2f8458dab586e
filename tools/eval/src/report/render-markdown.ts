import type { RunResult } from '../result-types.ts';
import type { ReportTable } from './table.ts';
import { renderSummary } from './render-text.ts';

/** Escapes what would break a Markdown table cell or be read as markup or HTML. */
function escapeMarkdownCell(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/([`*_[\]#])/g, '\\$1')
    .replace(/\r?\n/g, '<br>');
}

export function renderMarkdown(runs: readonly RunResult[], tables: readonly ReportTable[]): string {
  const row = (cells: string[]): string => `| ${cells.map(escapeMarkdownCell).join(' | ')} |`;
  return [
    `# tracecheck eval: ${runs.map((r) => r.runId).join(', ')}`,
    '',
    renderSummary(runs).trim(),
    '',
    ...tables.flatMap((table) => [
      `## ${escapeMarkdownCell(table.title)}`,
      '',
      row(table.header),
      `|${table.header.map(() => ' --- ').join('|')}|`,
      ...table.rows.map(row),
      '',
    ]),
  ].join('\n');
}
