import { toText } from '../expression/index.ts';
import type { MetricResult, RowResult, RunResult, TryResult } from '../result-types.ts';

/** A prompt's report table: one row per model × parameters × reference, columns per try. */
export interface ReportTable {
  /** The prompt's name. */
  title: string;
  header: string[];
  rows: string[][];
  /** Row status per row, for styling. */
  statuses: Array<RowResult['status']>;
}

function formatParams(params: Record<string, unknown>): string {
  return Object.entries(params)
    .filter(([k]) => k !== 'model')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
}

function formatInput(input: Record<string, unknown>): string {
  return Object.entries(input)
    .map(([k, v]) => `${k}=${toText(v)}`)
    .join(' ');
}

function formatValue(v: MetricResult['value']): string {
  if (v === null) return '-';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(3);
  return toText(v);
}

function formatMetric(m: MetricResult | undefined): string {
  if (!m) return '';
  if (m.error !== undefined) return `error: ${m.error}`;
  const verdict = m.passed === null ? '' : m.passed ? ' pass' : ' FAIL';
  return `${formatValue(m.value)}${verdict}`;
}

function actualOf(t: TryResult | undefined): string {
  if (!t) return '';
  if (t.error !== undefined) return `error: ${t.error}`;
  return t.actual ?? '';
}

function statusLabel(row: RowResult): string {
  const c = row.counts;
  const passes = c.num_passes + c.num_skip_passes;
  const word = row.status === 'pass' ? 'PASS' : row.status === 'fail' ? 'FAIL' : 'SKIP';
  return `${word} (${passes}/${c.n_tries})`;
}

/** One table per prompt (its metrics are its own), rows across every run given. */
export function buildTables(runs: readonly RunResult[]): ReportTable[] {
  const names = [...new Set(runs.flatMap((r) => r.prompts.map((p) => p.name)))];
  return names.map((name) => buildPromptTable(runs, name));
}

function buildPromptTable(runs: readonly RunResult[], name: string): ReportTable {
  const prompts = runs.flatMap((r) => r.prompts.filter((p) => p.name === name).map((p) => ({ run: r.runId, p })));
  const allRows = prompts.flatMap(({ run, p }) => p.rows.map((row) => ({ run, row })));
  const metricNames = [...new Set(prompts.flatMap(({ p }) => p.metrics))];
  const maxTries = Math.max(0, ...allRows.map(({ row }) => row.tries.length));
  const multiRun = runs.length > 1;
  const header = [...(multiRun ? ['run'] : []), 'model', 'params', 'reference', 'input', 'expected'];
  for (let t = 0; t < maxTries; t++) {
    header.push(`try ${t + 1} actual`);
    for (const m of metricNames) header.push(`try ${t + 1} ${m}`);
  }
  header.push('result');
  const rows = allRows.map(({ run, row }) => {
    const cells = [
      ...(multiRun ? [run] : []),
      toText(row.params.model ?? ''),
      formatParams(row.params),
      row.reference.skip ? `${row.reference.id} (skip)` : row.reference.id,
      formatInput(row.reference.input),
      toText(row.reference.expected),
    ];
    for (let t = 0; t < maxTries; t++) {
      const tr = row.tries[t];
      cells.push(actualOf(tr));
      for (const m of metricNames) cells.push(formatMetric(tr?.metrics.find((x) => x.name === m)));
    }
    cells.push(statusLabel(row));
    return cells;
  });
  return { title: name, header, rows, statuses: allRows.map(({ row }) => row.status) };
}
