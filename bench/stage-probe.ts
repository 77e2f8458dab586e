// Where a trace's latency goes, stage by stage, without touching the pipeline's code: kafkajs's
// and the ClickHouse client's prototypes are wrapped in this (benchmark) process, and every record
// sent or fetched, and every scores INSERT, is timestamped by its key (the trace id, which is also
// the unit id). `bench:e2e -- kafka --stages` installs it before the pipeline starts.
import { createClient } from '@clickhouse/client';
import { Kafka } from 'kafkajs';

/** Per key, the last time each mark was seen (a trace's last span, a unit's only send). */
const marks = new Map<string, Record<string, number>>();

function mark(key: string, name: string, at: number): void {
  let m = marks.get(key);
  if (!m) marks.set(key, (m = {}));
  m[name] = Math.max(m[name] ?? 0, at);
}

/** Per consumer: how long each eachBatch took, its awaited commits, and the time between batches (fetching). */
const loops = new Map<string, { batches: number[]; commits: number[]; gaps: number[]; lastEnd: number }>();
function loop(role: string) {
  let l = loops.get(role);
  if (!l) loops.set(role, (l = { batches: [], commits: [], gaps: [], lastEnd: 0 }));
  return l;
}

const inserts: Array<{ table: string; rows: number; ms: number }> = [];

/** `units` for `e2e.units.abc`: the pipeline harness names its topics `e2e.<kind>.<id>`. */
const kindOf = (topic: string): string => topic.split('.')[1] ?? topic;
/** Only the scorer's consumer of the units topic matters here (the session assembler reads it too). */
const roleOf = (groupId: string): string => (groupId.includes('scorer') ? 'scorer' : groupId.includes('sessions') ? 'sessions' : 'assembler');

export function installStageProbe(): void {
  type AnyFn = (...args: never[]) => unknown;
  const proto = Kafka.prototype as unknown as Record<'producer' | 'consumer', AnyFn>;
  const producer = proto.producer;
  proto.producer = function (this: Kafka, ...args: never[]) {
    const p = producer.apply(this, args) as { send: (r: { topic: string; messages: Array<{ key?: string; value?: string }> }) => Promise<unknown> };
    const send = p.send.bind(p);
    p.send = async (record) => {
      const kind = kindOf(record.topic);
      const t0 = Date.now();
      for (const m of record.messages) {
        if (!m.key) continue;
        mark(m.key, `${kind}.send`, t0);
        const assembled = kind === 'units' && typeof m.value === 'string' ? /"assembled_at_ms":(\d+)/.exec(m.value) : null;
        if (assembled) mark(m.key, 'assembled', Number(assembled[1]));
      }
      const out = await send(record);
      const t1 = Date.now();
      for (const m of record.messages) if (m.key) mark(m.key, `${kind}.acked`, t1);
      return out;
    };
    return p;
  };
  const consumer = proto.consumer;
  proto.consumer = function (this: Kafka, ...args: never[]) {
    const role = roleOf((args[0] as unknown as { groupId: string }).groupId);
    const c = consumer.apply(this, args) as { commitOffsets: (o: unknown) => Promise<void>; run: (o: { eachBatch: (p: { batch: { topic: string; messages: Array<{ key: Buffer | null }> } }) => Promise<void> }) => Promise<void> };
    const run = c.run.bind(c);
    const commitOffsets = c.commitOffsets.bind(c);
    c.commitOffsets = async (o) => {
      const t0 = Date.now();
      await commitOffsets(o);
      loop(role).commits.push(Date.now() - t0);
    };
    c.run = (o) =>
      run({
        ...o,
        eachBatch: async (payload) => {
          const t = Date.now();
          const kind = kindOf(payload.batch.topic);
          if (role !== 'sessions') for (const m of payload.batch.messages) if (m.key) mark(m.key.toString('utf8'), `${kind}.fetched`, t);
          const l = loop(role);
          if (l.lastEnd > 0) l.gaps.push(t - l.lastEnd);
          await o.eachBatch(payload);
          l.lastEnd = Date.now();
          l.batches.push(l.lastEnd - t);
        },
      });
    return c;
  };
  // The class createClient makes is not the one the package exports by that name.
  const sample = createClient({ url: 'http://127.0.0.1:1' });
  const ch = Object.getPrototypeOf(sample) as unknown as Record<'insert' | 'query', (this: unknown, p: { table?: string; query?: string; values?: unknown }) => Promise<unknown>>;
  const insert = ch.insert;
  ch.insert = async function (this: unknown, params) {
    const table = params.table ?? '';
    const keys = table.endsWith('.scores') && Array.isArray(params.values) ? [...new Set((params.values as Array<{ unit_id: string }>).map((r) => r.unit_id))] : [];
    const t0 = Date.now();
    for (const k of keys) mark(k, 'insert.start', t0);
    const out = await insert.call(this, params);
    const t1 = Date.now();
    inserts.push({ table: table.split('.').pop() ?? table, rows: Array.isArray(params.values) ? params.values.length : 0, ms: t1 - t0 });
    for (const k of keys) mark(k, 'insert.done', t1);
    return out;
  };
  const query = ch.query;
  ch.query = async function (this: unknown, params) {
    // The store's first round trip of a write: the revisions already known of the units written.
    const known = params.query?.includes('unit_revisions WHERE unit_id IN') ? [...params.query.matchAll(/'([0-9a-f]{32})'/g)].map((m) => m[1]) : [];
    const t0 = Date.now();
    for (const k of known) mark(k, 'select.start', t0);
    return query.call(this, params);
  };
  void sample.close();
}

/** The stages, in pipeline order: each is the time from the mark before it. */
const STAGES: Array<[string, string]> = [
  ['spans.acked', 'Kafka produce of the spans (acks=all)'],
  ['spans.fetched', 'assembler: fetch of the last span'],
  ['assembled', 'assembler: complete-trace grace + tick + assembly'],
  ['units.send', 'assembler: assembled → unit produce begins'],
  ['units.acked', 'Kafka produce of the unit'],
  ['units.fetched', 'scorer: fetch of the unit'],
  ['select.start', 'scorer: checks + wait for the store (batch in flight)'],
  ['insert.start', 'store: SELECT of known revisions'],
  ['insert.done', 'store: INSERTs (units, revisions, scores)'],
  ['visible', 'benchmark: insert acknowledged → seen by its poll'],
];

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN;

/** Markdown rows: p50 / p95 / p99 of each stage over the sampled traces that have every mark. */
export function stageTable(samples: ReadonlyArray<{ id: string; sentAt: number; visibleAt: number }>): string[] {
  const complete = samples.map((s) => ({ ...marks.get(s.id), exported: s.sentAt, visible: s.visibleAt })).filter((m) => STAGES.every(([k]) => typeof (m as Record<string, number>)[k] === 'number'));
  const rows = ['| stage | p50 / p95 / p99 ms |', '|---|---|'];
  // The chain starts when the collector produced the trace's last spans; the benchmark's own clock
  // starts when the whole export returned, a little later (the last row).
  let prev = 'spans.send';
  for (const [name, label] of STAGES) {
    const d = complete.map((m) => (m as Record<string, number>)[name] - (m as Record<string, number>)[prev]);
    rows.push(`| ${label} | ${pct(d, 50)} / ${pct(d, 95)} / ${pct(d, 99)} |`);
    prev = name;
  }
  const lead = complete.map((m) => m.exported - (m as Record<string, number>)['spans.acked']);
  rows.push(`| (spans acknowledged → the export returned to the benchmark, not in its figure) | ${pct(lead, 50)} / ${pct(lead, 95)} / ${pct(lead, 99)} |`);
  const total = complete.map((m) => m.visible - m.exported);
  rows.push(`| total (${complete.length} traces with every mark) | ${pct(total, 50)} / ${pct(total, 95)} / ${pct(total, 99)} |`);
  // Units the scorer holds (fetched, scores not yet acknowledged), every 100 ms: its in-flight window.
  const spans = [...marks.values()].filter((m) => m['units.fetched'] && m['scores.acked']).map((m) => [m['units.fetched'], m['scores.acked']] as const);
  if (spans.length > 0) {
    const from = Math.min(...spans.map((s) => s[0]));
    const to = Math.max(...spans.map((s) => s[1]));
    const held: number[] = [];
    for (let t = from; t <= to; t += 100) held.push(spans.filter(([a, b]) => a <= t && t < b).length);
    rows.push(`| (scorer: units in flight, fetched → scores acknowledged, p50 / max over time: ${pct(held, 50)} / ${Math.max(...held)}) | |`);
  }
  for (const [role, l] of loops) {
    const f = (xs: number[]): string => `${pct(xs, 50)} / ${pct(xs, 95)}`;
    rows.push(`| (${role} consumer: ${l.batches.length} batches of ${f(l.batches)} ms, commit ${f(l.commits)} ms, between batches ${f(l.gaps)} ms) | |`);
    l.batches = [];
    l.commits = [];
    l.gaps = [];
  }
  const byTable = new Map<string, Array<{ rows: number; ms: number }>>();
  for (const i of inserts) byTable.set(i.table, [...(byTable.get(i.table) ?? []), i]);
  for (const [table, xs] of byTable) {
    rows.push(`| (INSERT into ${table}: ${xs.length}, rows each p50 ${pct(xs.map((x) => x.rows), 50)}, ms p50 / p95 ${pct(xs.map((x) => x.ms), 50)} / ${pct(xs.map((x) => x.ms), 95)}) | |`);
  }
  inserts.length = 0;
  return rows;
}
