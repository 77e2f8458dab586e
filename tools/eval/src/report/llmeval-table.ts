import type { PromptResult, RowResult, RunResult } from '../result-types.ts';
import type { LlmevalReportFile } from './llmeval-report.ts';
import { byVariant, llmevalReportFiles } from './llmeval-report.ts';

const PASS = '✅';
const FAIL = '🛑';

/** A value as Python's str() prints it, as llmeval's table shows metrics and hyperparameters. */
function pyStr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return JSON.stringify(v);
}

/** A cell as llmeval formats inputs and answers: at most 50 characters, in backticks, one line. */
function cell(v: unknown): string {
  let s = pyStr(v);
  s = s.length > 50 ? `${s.slice(0, 50)}...` : s;
  return `\`${s.replace(/`/g, '')}\``.replace(/[\n|]/g, ' ');
}

function rowPassed(row: RowResult, p: PromptResult): boolean {
  // With roll-up code the test's verdict decides its rows; else a failed try of a kept reference.
  const test = p.tests?.find((t) => JSON.stringify(t.params) === JSON.stringify(row.params));
  if (test) return test.result === 'pass';
  return row.reference.skip || row.tries.every((t) => t.passed);
}

function promptTable(p: PromptResult, files: readonly LlmevalReportFile[]): { text: string; passed: boolean } {
  const first = files.find((f) => f.prompts.name === p.name)!;
  const hyper = Object.keys(first.prompts).filter((k) => !['variables', 'name', 'messages', 'code', 'tests'].includes(k));
  const variables = (first.prompts.variables as Array<{ name: string }>).map((v) => v.name);
  const rollupName = p.tests?.[0]?.name ?? '';
  const cols = [rollupName, ...hyper, ...variables, 'Expected'];
  for (let i = 0; i < p.nTries; i++) {
    cols.push(`Actual #${i}`);
    for (const m of p.metrics) cols.push(`${m} (metric) #${i}`, `${m} (pass / fail) #${i}`);
  }
  const lines = [`| ${cols.join(' | ')} |`, `| ${cols.map(() => '---').join(' | ')} |`];
  let passed = true;
  for (const rows of byVariant(p.rows)) {
    for (const row of rows) {
      const ok = rowPassed(row, p);
      passed &&= ok;
      const cells = [ok ? PASS : FAIL, ...hyper.map((h) => pyStr(row.params[h])), ...variables.map((v) => cell(row.reference.input[v])), cell(row.reference.expected ?? 'N/A')];
      for (const t of row.tries) {
        cells.push(cell(t.actual ?? `error: ${t.error ?? ''}`));
        for (const name of p.metrics) {
          const m = t.metrics.find((x) => x.name === name);
          const good = m !== undefined && m.passed !== false && m.error === undefined;
          // Skipped results count apart under roll-up code too (num_skip_*), so the note is the same.
          const skipNote = row.reference.skip ? ' (skipping)' : '';
          cells.push(pyStr(m?.value ?? m?.error ?? null), `${good ? PASS : FAIL}${skipNote}`);
        }
      }
      lines.push(`| ${cells.join(' | ')} |`);
    }
  }
  const body = p.config.code !== undefined ? pyStr(p.config.code) : JSON.stringify(p.config.messages ?? p.config.prompt ?? '', null, 2);
  return { text: `## ${passed ? PASS : FAIL} ${p.name}\n\`\`\`\n${body}\n\`\`\`\n${lines.join('\n')}\n`, passed };
}

/**
 * llmeval's Markdown report: per prompt a table with the roll-up's name (or nothing), the
 * hyperparameters, the variables, `Expected`, then per try `Actual #i`, `<metric> (metric) #i` and
 * `<metric> (pass / fail) #i`; a ✅ or 🛑 per row, per prompt and for the report.
 */
export function renderLlmevalTable(run: RunResult): string {
  const files = llmevalReportFiles(run);
  const tables = run.prompts.filter((p) => p.rows.length > 0).map((p) => promptTable(p, files));
  const date = run.startedAt.slice(0, 19).replace('T', ' ');
  const all = tables.every((t) => t.passed) && run.passed;
  return `#  ${all ? PASS : FAIL} llmeval report\n\n**Date** ${date}\n${tables.map((t) => t.text).join('')}`;
}
