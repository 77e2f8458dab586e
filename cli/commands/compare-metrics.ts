import { parseArgs } from 'node:util';
import { compareMetrics, type MetricComparison } from '../../services/api/src/index.ts';
import type { CliIo } from '../command.ts';
import { createCommandLogger } from '../command-logger.ts';
import { createStore } from '../compose.ts';
import { loadConfigOrReport } from '../load-config-or-exit.ts';
import { ServerApiError, findRunningServer, serverApi } from '../running-server.ts';

export const METRICS_USAGE = `       tracecheck compare --metrics --a FILTER=V … --b FILTER=V … [--from T] [--to T] [--alpha A] [--project P] [--key KEY] [--json]

  --metrics             B against A on the stored units' duration_ms, cost_usd and tokens: medians,
                        the Mann–Whitney U test (exact p for small samples without ties, else the
                        normal approximation with tie correction) and the Hodges–Lehmann shift B − A
                        with its distribution-free 95% interval (docs/cost-and-latency.md). Reads the
                        configured store (TRACECHECK_CLICKHOUSE_URL, else the DuckDB file, or the API
                        of the tracecheck up holding it: --key or TRACECHECK_API_KEY). FILTER: agent, agent_version, environment, service,
                        unit_kind; T: epoch ms or ISO 8601 (units' end time); --alpha default 0.05
`;

const FILTERS = new Set(['agent', 'agent_version', 'environment', 'service', 'unit_kind']);
const KINDS = new Set(['trace', 'session', 'eval']);

type Side = Record<string, string>;

function side(list: string[] | undefined): Side | string {
  const out: Side = {};
  for (const item of list ?? []) {
    const eq = item.indexOf('=');
    const key = eq > 0 ? item.slice(0, eq) : '';
    if (!FILTERS.has(key)) return `unknown filter in ${item}: use ${[...FILTERS].join(', ')}`;
    if (key === 'unit_kind' && !KINDS.has(item.slice(eq + 1))) return `unit_kind is trace, session or eval`;
    out[key] = item.slice(eq + 1);
  }
  return out;
}

function time(v: string | undefined): number | undefined | null {
  if (v === undefined) return undefined;
  const n = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  return Number.isFinite(n) ? n : null;
}

/** The text table: one line per metric. */
function renderMetricComparisons(rows: readonly MetricComparison[]): string {
  const f = (x: number | null, m: string): string => (x === null ? '-' : m === 'cost_usd' ? x.toFixed(6) : String(Math.round(x * 100) / 100));
  const lines = rows.map((r) => {
    const ci = r.shift.ci[0] === null || r.shift.ci[1] === null ? '' : ` [${f(r.shift.ci[0], r.metric)}, ${f(r.shift.ci[1], r.metric)}]`;
    const p = r.p_value === null ? '-' : r.p_value < 0.0001 ? '<0.0001' : r.p_value.toFixed(4);
    return `${r.metric.padEnd(12)} A median ${f(r.a.median, r.metric)} (n=${r.a.n})  B median ${f(r.b.median, r.metric)} (n=${r.b.n})  B-A ${f(r.shift.estimate, r.metric)}${ci}  p=${p}${r.method ? ` (${r.method})` : ''}  ${r.verdict}`;
  });
  return `${lines.join('\n')}\n`;
}

/** `tracecheck compare --metrics`: exit 0 with the comparison, 2 on bad arguments or configuration. */
export async function compareMetricsCommand(argv: string[], io: CliIo): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: { metrics: { type: 'boolean' }, a: { type: 'string', multiple: true }, b: { type: 'string', multiple: true }, from: { type: 'string' }, to: { type: 'string' }, alpha: { type: 'string' }, project: { type: 'string' }, key: { type: 'string' }, json: { type: 'boolean' } },
    }).values;
  } catch (err) {
    io.stderr.write(`tracecheck compare: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const a = side(values.a);
  const b = side(values.b);
  const from = time(values.from);
  const to = time(values.to);
  const alpha = values.alpha === undefined ? 0.05 : Number(values.alpha);
  const problem =
    typeof a === 'string' ? a : typeof b === 'string' ? b : from === null || to === null ? '--from and --to take epoch ms or ISO 8601' : !(alpha > 0 && alpha < 1) ? '--alpha must be between 0 and 1' : JSON.stringify(a) === JSON.stringify(b) ? 'give --a and --b filters that select different units (e.g. --a agent_version=v1 --b agent_version=v2)' : null;
  if (problem !== null) {
    io.stderr.write(`tracecheck compare: ${problem}\n`);
    return 2;
  }
  const config = loadConfigOrReport(io);
  if (!config) return 2;
  const server = findRunningServer(config);
  if (server) {
    const query = new URLSearchParams({ alpha: String(alpha) });
    for (const [k, v] of Object.entries(a as Side)) query.set(`a.${k}`, v);
    for (const [k, v] of Object.entries(b as Side)) query.set(`b.${k}`, v);
    if (from !== undefined) query.set('from', String(from));
    if (to !== undefined) query.set('to', String(to));
    try {
      const { metrics } = await serverApi(server, values.key ?? io.env.TRACECHECK_API_KEY, values.project).call<{ metrics: MetricComparison[] }>('GET', `/api/v1/compare?${query.toString()}`);
      io.stdout.write(values.json ? `${JSON.stringify({ alpha, a, b, metrics }, null, 2)}\n` : renderMetricComparisons(metrics));
      return 0;
    } catch (err) {
      if (!(err instanceof ServerApiError)) throw err;
      io.stderr.write(`tracecheck compare: ${err.message}\n`);
      return 1;
    }
  }
  const store = createStore(config, createCommandLogger(config, 'warn', 'tracecheck-compare'));
  await store.start();
  try {
    const rows = await compareMetrics(store, { project: values.project ?? 'default', a: a as Side, b: b as Side, alpha, from: from ?? undefined, to: to ?? undefined });
    io.stdout.write(values.json ? `${JSON.stringify({ alpha, a, b, metrics: rows }, null, 2)}\n` : renderMetricComparisons(rows));
    return 0;
  } finally {
    await store.shutdown();
  }
}
