import type { RunResult } from '../result-types.ts';
import type { ReportTable } from './table.ts';

const MAX_CELL = 40;

function clip(s: string): string {
  const one = s.replace(/\r?\n/g, '⏎').replace(/\t/g, ' ');
  return one.length > MAX_CELL ? `${one.slice(0, MAX_CELL - 1)}…` : one;
}

/** Fixed-width table for a terminal or a CI log, cells clipped to one short line. */
export function renderTextTables(tables: readonly ReportTable[]): string {
  return tables.map((t) => `${t.title}\n${renderTextTable(t)}`).join('\n');
}

export function renderTextTable(table: ReportTable): string {
  const all = [table.header, ...table.rows].map((r) => r.map(clip));
  const widths = table.header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r: string[]): string => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(all[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n') + '\n';
}

export function renderSummary(runs: readonly RunResult[]): string {
  const s = runs.reduce(
    (acc, r) => ({
      rows: acc.rows + r.summary.rows,
      passed: acc.passed + r.summary.passed,
      failed: acc.failed + r.summary.failed,
      skipped: acc.skipped + r.summary.skipped,
    }),
    { rows: 0, passed: 0, failed: 0, skipped: 0 },
  );
  const verdict = runs.every((r) => r.passed) ? 'PASSED' : 'FAILED';
  const ids = runs.map((r) => r.runId).join(', ');
  // Roll-up code decides a whole test, whatever its references' own statuses.
  const tests = runs.flatMap((r) =>
    r.prompts.flatMap((p) => (p.tests ?? []).map((t) => `${p.name} ${t.name}: ${t.result.toUpperCase()} (num_passes=${t.counts.num_passes} num_fails=${t.counts.num_fails} num_skip_passes=${t.counts.num_skip_passes} num_skip_fails=${t.counts.num_skip_fails})\n`)),
  );
  return `${tests.join('')}${verdict}: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped of ${s.rows} references (run ${ids})\n`;
}
