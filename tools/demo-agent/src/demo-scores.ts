import { RetriableError } from '../../../shared/runtime/errors/index.ts';

type DemoScenario = 'healthy' | 'toolFails' | 'loops';

/** A score as `GET /api/v1/units/{id}` presents it (only the fields the table shows). */
interface DemoScore {
  check: string;
  value: number | null;
  passed: boolean | null;
  explanation: string;
  method: string;
  status: string;
  error?: string | null;
}

export interface DemoScoreResult {
  scenario: DemoScenario;
  traceId: string;
  scores: DemoScore[];
}

export interface WaitForDemoScoresOptions {
  /** The API's base URL, e.g. http://127.0.0.1:8080. */
  apiUrl: string;
  traceIds: Record<DemoScenario, string>;
  /** Checks to wait for on every trace; default function_result_present and task_completed. */
  checks?: readonly string[];
  timeoutMs?: number;
  pollIntervalMs?: number;
}

export const DEMO_CHECKS = ['function_result_present', 'task_completed'] as const;

function isScore(value: unknown): value is DemoScore {
  return typeof value === 'object' && value !== null && typeof (value as { check?: unknown }).check === 'string';
}

async function fetchScores(apiUrl: string, traceId: string): Promise<DemoScore[] | null> {
  const res = await fetch(`${apiUrl.replace(/\/+$/, '')}/api/v1/units/${encodeURIComponent(traceId)}`);
  if (res.status === 404) return null;
  if (!res.ok) throw new RetriableError(`GET /api/v1/units/${traceId} answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { scores?: unknown };
  return Array.isArray(body.scores) ? body.scores.filter(isScore) : [];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls the API until every demo trace has a score for every expected check (whatever its
 * status), or the deadline passes; then rejects naming what is missing.
 */
export async function waitForDemoScores(options: WaitForDemoScoresOptions): Promise<DemoScoreResult[]> {
  const checks = options.checks ?? DEMO_CHECKS;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const interval = options.pollIntervalMs ?? 500;
  const scenarios = Object.keys(options.traceIds) as DemoScenario[];
  const found = new Map<DemoScenario, DemoScore[]>();
  for (;;) {
    for (const scenario of scenarios) {
      const have = found.get(scenario);
      if (have && checks.every((c) => have.some((s) => s.check === c))) continue;
      const scores = await fetchScores(options.apiUrl, options.traceIds[scenario]).catch((err: unknown) => {
        if (Date.now() >= deadline) throw err;
        return null;
      });
      if (scores) found.set(scenario, scores);
    }
    const missing = scenarios.flatMap((scenario) =>
      checks.filter((c) => !(found.get(scenario) ?? []).some((s) => s.check === c)).map((c) => `${scenario} (${options.traceIds[scenario]}): ${c}`),
    );
    if (missing.length === 0) {
      return scenarios.map((scenario) => ({
        scenario,
        traceId: options.traceIds[scenario],
        scores: [...found.get(scenario)!].filter((s) => checks.includes(s.check)).sort((a, b) => checks.indexOf(a.check) - checks.indexOf(b.check)),
      }));
    }
    if (Date.now() >= deadline) throw new RetriableError(`scores did not arrive in time; missing: ${missing.join('; ')}`);
    await sleep(interval);
  }
}

function verdict(score: DemoScore): string {
  if (score.status !== 'ok') return score.status.toUpperCase();
  if (score.passed === true) return 'PASS';
  if (score.passed === false) return 'FAIL';
  return 'SCORE';
}

function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** A plain-text table: one row per (trace, check). */
export function formatScoreTable(results: readonly DemoScoreResult[]): string {
  const rows = [['conversation', 'trace id', 'check', 'result', 'value', 'method', 'explanation']];
  for (const r of results) {
    for (const s of r.scores) {
      const why = s.status === 'ok' ? s.explanation : (s.error ?? s.explanation);
      rows.push([r.scenario, r.traceId, s.check, verdict(s), s.value === null ? '-' : String(s.value), s.method, oneLine(why, 80)]);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ')).join('\n');
}
