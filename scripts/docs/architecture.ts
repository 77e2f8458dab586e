// The README's architecture picture, rendered from the declared topology (cli/topology.ts): pure
// functions, so that a test can say when the README's copy is stale (`npm run docs:architecture`
// rewrites it).
import type { TopicNames } from '../../shared/adapters/bus/index.ts';
import { isTopic, type Outside, type Port, type StageFlow } from '../../cli/topology.ts';

const OUTSIDE: Record<Outside, string> = {
  otlp: 'agents: OTLP/HTTP, gRPC',
  store: 'store',
  http: 'HTTP: API, dashboard',
  notify: 'webhook, Slack',
};

const ONLY_WITH: Record<NonNullable<StageFlow['onlyWith']>, string> = { duckdb: 'DuckDB' };

export const BEGIN = '<!-- architecture: rendered from cli/topology.ts by `npm run docs:architecture`; edit the topology, not this -->';
export const END = '<!-- /architecture -->';

/** One row per stage, `in ──▶ stage ──▶ out`, with the service that runs it; then topics, store and dead letters. */
export function renderArchitecture(topology: readonly StageFlow[], names: TopicNames): string {
  const label = (port: Port): string => (isTopic(port) ? names[port] : OUTSIDE[port]);
  const rows = topology.map((s) => [
    s.service,
    s.in.map(label).join(', ') + (s.lookups?.length ? ` (+ ${s.lookups.map(label).join(', ')})` : ''),
    s.stage + (s.onlyWith ? ` (${ONLY_WITH[s.onlyWith]} only)` : ''),
    s.out.map(label).join(', '),
  ]);
  const header = ['process', 'reads', 'stage', 'writes'];
  const width = (i: number): number => Math.max(header[i].length, ...rows.map((r) => r[i].length));
  const line = (r: string[], arrow: string): string => `${r[0].padEnd(width(0))}  ${r[1].padEnd(width(1))} ${arrow} ${r[2].padEnd(width(2))} ${arrow} ${r[3]}`.trimEnd();
  const readers = new Map<string, string[]>();
  for (const s of topology) for (const port of s.in.filter(isTopic)) readers.set(names[port], [...(readers.get(names[port]) ?? []), s.stage]);
  const dlqWidth = Math.max(...[...readers.keys()].map((t) => `${t}.dlq`.length));
  const deadLetters = [...readers].map(([topic, stages]) => `${`${topic}.dlq`.padEnd(dlqWidth)} (${stages.join(', ')})`);
  return [
    line(header, '   '),
    ...rows.map((r) => line(r, '──▶')),
    '',
    'process: `tracecheck <process>` runs its stages alone; `tracecheck up` runs them all in one',
    'topics: Kafka, or the in-process bus with its log on disk; store: ClickHouse, or DuckDB',
    '(+ store): a lookup in the store, when the process has one',
    ...deadLetters.map((d, i) => `${i === 0 ? 'dead letters:' : ''.padEnd(13)} ${d}`),
  ].join('\n');
}

/** The document with the picture between its markers replaced (as a `text` code block). */
export function withArchitecture(doc: string, picture: string): string {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`the architecture markers are missing: ${BEGIN} … ${END}`);
  return `${doc.slice(0, begin + BEGIN.length)}\n\`\`\`text\n${picture}\n\`\`\`\n${doc.slice(end)}`;
}
