import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPipeline } from '../../../cli/pipeline.ts';
import { loadConfig } from '../../../shared/runtime/config/index.ts';
import { startAll } from '../../../shared/runtime/lifecycle/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../../helpers/infra.ts';
import { largeTraceExport } from '../../helpers/large-trace-export.ts';
import { dropDatabase } from '../../helpers/score-counts.ts';

// Issue 40, item 1: after a run, the sessions group was reported behind on an idle pipeline. Its
// commit is held below the first trace of every open session (at least once), so it is behind until
// the last session closes, TRACECHECK_SESSION_IDLE_MS after its last trace. Once that has passed the
// group must be committed to the end of its topic, in both modes: lag 0.

const SPANS = 4;
const CONVERSATIONS = 2;
const TRACES_EACH = 3;
const log = createSilentLogger();

/** One export of TRACES_EACH traces for each of CONVERSATIONS conversations. */
function conversationsExport(tag: string): string {
  const resourceSpans = [];
  for (let c = 0; c < CONVERSATIONS; c++) {
    for (let t = 0; t < TRACES_EACH; t++) {
      const body = JSON.parse(largeTraceExport(randomBytes(16).toString('hex'), 'wide', 0, SPANS)) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ attributes: unknown[] }> }> }> };
      body.resourceSpans[0].scopeSpans[0].spans[0].attributes.push({ key: 'gen_ai.conversation.id', value: { stringValue: `${tag}-c${c}` } });
      resourceSpans.push(...body.resourceSpans);
    }
  }
  return JSON.stringify({ resourceSpans });
}

type Committed = (p: ReturnType<typeof buildPipeline>, busDir: string, topic: string, group: string) => Promise<number | null>;

async function run(env: Record<string, string>, committedOf: Committed): Promise<void> {
  const id = randomBytes(4).toString('hex');
  const topics = { spans: `idle.spans.${id}`, units: `idle.units.${id}`, scores: `idle.scores.${id}`, sessions: `idle.sessions.${id}` };
  const groups = { assembler: uniqueName('idle-assembler'), scorer: uniqueName('idle-scorer'), sessions: uniqueName('idle-sessions'), problems: uniqueName('idle-problems') };
  const config = loadConfig({
    TRACECHECK_DATA_DIR: mkdtempSync(join(tmpdir(), 'tracecheck-idle-')),
    TRACECHECK_OTLP_HTTP_PORT: '0',
    TRACECHECK_OTLP_GRPC_PORT: '0',
    TRACECHECK_METRICS_PORT: '0',
    TRACECHECK_TRACE_GRACE_MS: '200',
    TRACECHECK_SESSION_IDLE_MS: '1500',
    TRACECHECK_LAG_INTERVAL_MS: '300',
    TRACECHECK_CHECKS: 'function_result_present',
    ...env,
  });
  const pipeline = buildPipeline(config, log, new Set(['collector', 'assembler', 'scorer'] as const), { topics, groups });
  const stop = await startAll(pipeline.components, log);
  try {
    const res = await fetch(`${pipeline.collectorUrl()}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: conversationsExport(id) });
    expect(res.status).toBe(200);
    for (let c = 0; c < CONVERSATIONS; c++) {
      await waitFor(async () => ((await pipeline.store!.getUnit(`session:${id}-c${c}`))?.trace_ids.length === TRACES_EACH ? true : undefined), { timeoutMs: 30_000, description: `session ${c} stored` });
    }
    // Every trace unit with a conversation id went to the sessions topic once; all of it committed.
    await waitFor(async () => ((await committedOf(pipeline, config.bus.dir, topics.sessions, groups.sessions)) === CONVERSATIONS * TRACES_EACH ? true : undefined), {
      timeoutMs: 15_000,
      description: 'the sessions group committed to the end of its topic',
    });
  } finally {
    await stop();
  }
}

describe('the sessions group on an idle pipeline', () => {
  const databases: string[] = [];
  afterAll(async () => {
    for (const d of databases) await dropDatabase(testClickHouseUrl(), d);
  });

  it('embedded: is committed to the end of its topic once the idle time of the last session has passed', async () => {
    // The bus writes its groups' commits to offsets.json every 200 ms.
    await run({}, (_p, busDir, topic, group) => Promise.resolve(committedInFile(busDir, topic, group)));
  }, 90_000);

  it('Kafka: is committed to the end of its topic once the idle time of the last session has passed: lag 0', async () => {
    const database = uniqueName('idle');
    databases.push(database);
    await run({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: database }, async (p, _busDir, topic, group) => {
      const values = (await p.metrics.consumerLagRecords.get()).values.filter((v) => v.labels.group === group && v.labels.topic === topic);
      if (values.length === 0) return null;
      return values.every((v) => v.value === 0) ? CONVERSATIONS * TRACES_EACH : null;
    });
  }, 120_000);
});

/** The group's commit summed over the topic's partitions (the next offsets to read), from the bus's offsets file. */
function committedInFile(busDir: string, topic: string, group: string): number | null {
  try {
    const offsets = JSON.parse(readFileSync(join(busDir, 'offsets.json'), 'utf8')) as Record<string, Record<string, Record<string, string>>>;
    const byPartition = offsets[group]?.[topic];
    return byPartition ? Object.values(byPartition).reduce((n, o) => n + Number(o), 0) : null;
  } catch {
    return null;
  }
}
