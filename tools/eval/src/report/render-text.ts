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

function renderTextTable(table: ReportTable): string {
  const all = [table.header, ...table.rows].map((r) => r.map(clip));
  const widths = table.header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r: string[]): string => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(all[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n') + '\n';
}

/**
 * The verdict line. A prompt with roll-up code is decided per test (its roll-up's verdict), so its
 * tests are counted, not its references; the other prompts' references are counted as before.
 */
export function renderSummary(runs: readonly RunResult[]): string {
  const prompts = runs.flatMap((r) => r.prompts);
  const tests = prompts.flatMap((p) => p.tests ?? []);
  const rows = prompts.filter((p) => !p.tests).flatMap((p) => p.rows);
  const count = (status: string): number => rows.filter((r) => r.status === status).length;
  const verdict = runs.every((r) => r.passed) ? 'PASSED' : 'FAILED';
  const ids = runs.map((r) => r.runId).join(', ');
  // Roll-up code decides a whole test, whatever its references' own statuses.
  const lines = prompts.flatMap((p) => (p.tests ?? []).map((t) => `${p.name} ${t.name}: ${t.result.toUpperCase()} (num_passes=${t.counts.num_passes} num_fails=${t.counts.num_fails} num_skip_passes=${t.counts.num_skip_passes} num_skip_fails=${t.counts.num_skip_fails})\n`));
  const parts = [
    ...(tests.length > 0 ? [`${tests.filter((t) => t.result === 'pass').length} passed, ${tests.filter((t) => t.result === 'fail').length} failed of ${tests.length} tests by their roll-up`] : []),
    ...(rows.length > 0 || tests.length === 0 ? [`${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped of ${rows.length} references`] : []),
  ];
  return `${lines.join('')}${verdict}: ${parts.join('; ')} (run ${ids})\n`;
}
