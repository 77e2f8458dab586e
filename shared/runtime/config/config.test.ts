import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('defaults to the embedded mode with no judge, and says why model checks will not run', () => {
    const c = loadConfig({});
    expect(c.kafka).toBeNull();
    expect(c.clickhouse).toBeNull();
    expect(c.judge).toBeNull();
    expect(c.judgeUnavailableReason).toMatch(/OPENAI_BASE_URL/);
    expect(c.ports).toEqual({ otlpHttp: 4318, otlpGrpc: 4317, api: 8080, metrics: null });
    expect(c.dataDir).toBe('./data');
    expect(c.limits.maxBodyBytes).toBe(20 * 1024 * 1024);
    expect(c.alerter).toEqual({
      intervalMs: 60_000,
      allowPrivateTargets: { hosts: [], cidrs: [] },
      smtp: null,
      limits: { maxRules: 100, maxEmailRecipients: 20, emailDomains: [], minEmailRemindMs: 900_000 },
    });
    expect([c.trustedProxies, c.metricsToken]).toEqual([{ hosts: [], cidrs: [] }, null]);
  });

  it('reads the private alert targets, trusted proxies and the metrics token, and names every bad entry', () => {
    const c = loadConfig({ TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS: '127.0.0.1,10.0.0.0/8,hooks.internal', TRACECHECK_TRUSTED_PROXIES: '::1', TRACECHECK_METRICS_TOKEN: 'scrape-token-0123456789' });
    expect(c.alerter.allowPrivateTargets).toEqual({ hosts: ['hooks.internal'], cidrs: ['127.0.0.1/32', '10.0.0.0/8'] });
    const mail = loadConfig({ TRACECHECK_EMAIL_ALLOWED_DOMAINS: ' Example.com, @ops.example.org. ', TRACECHECK_EMAIL_MIN_REMIND_MINUTES: '60', TRACECHECK_EMAIL_MAX_RECIPIENTS: '5' });
    expect(mail.alerter.limits).toEqual({ maxRules: 100, maxEmailRecipients: 5, emailDomains: ['example.com', 'ops.example.org'], minEmailRemindMs: 3_600_000 });
    expect(() => loadConfig({ TRACECHECK_EMAIL_ALLOWED_DOMAINS: 'example.com,not a domain' })).toThrow('"not a domain" is not a domain such as example.com');
    expect([c.trustedProxies, c.metricsToken]).toEqual([{ hosts: [], cidrs: ['::1/128'] }, 'scrape-token-0123456789']);
    expect(() => loadConfig({ TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS: '10.0.0.0/40', TRACECHECK_METRICS_TOKEN: 'short' })).toThrow(
      'invalid configuration:\n  - TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS: "10.0.0.0/40" is neither a host name, an IP address nor a range such as 10.0.0.0/8\n  - TRACECHECK_METRICS_TOKEN: at least 16 characters',
    );
  });

  it('sends scores out only with an endpoint, reading headers as OTEL_EXPORTER_OTLP_HEADERS writes them', () => {
    expect(loadConfig({}).evaluationExport).toBeNull();
    expect(loadConfig({ TRACECHECK_EXPORT_OTLP_ENDPOINT: 'http://otel:4318', TRACECHECK_EXPORT_OTLP_HEADERS: 'Authorization=Bearer%20k1, X-Team = ops' }).evaluationExport).toEqual({
      endpoint: 'http://otel:4318',
      protocol: 'http/protobuf',
      headers: { authorization: 'Bearer k1', 'x-team': 'ops' },
      timeoutMs: 10_000,
      maxQueue: 20_000,
    });
    expect(loadConfig({ TRACECHECK_EXPORT_OTLP_ENDPOINT: 'https://otel:4317', TRACECHECK_EXPORT_OTLP_PROTOCOL: 'grpc' }).evaluationExport?.protocol).toBe('grpc');
    expect(() => loadConfig({ TRACECHECK_EXPORT_OTLP_ENDPOINT: 'otel:4317', TRACECHECK_EXPORT_OTLP_PROTOCOL: 'http/json', TRACECHECK_EXPORT_OTLP_HEADERS: 'nokey' })).toThrow(
      'invalid configuration:\n  - TRACECHECK_EXPORT_OTLP_ENDPOINT: must be http://… or https://…\n  - TRACECHECK_EXPORT_OTLP_HEADERS: "nokey" is not name=value (a header name, "=", its value)\n  - TRACECHECK_EXPORT_OTLP_PROTOCOL: Invalid option: expected one of "http/protobuf"|"grpc"',
    );
  });

  it('caps the spans kept per trace at 10,000 unless told otherwise', () => {
    expect(loadConfig({}).assembler.maxSpansPerTrace).toBe(10_000);
    expect(loadConfig({ TRACECHECK_MAX_SPANS_PER_TRACE: '500' }).assembler.maxSpansPerTrace).toBe(500);
    expect(loadConfig({}).assembler.caps).toEqual({ maxOpenTraces: 50_000, maxOpenBytes: 268_435_456, maxRootlessTraces: 10_000 });
    expect(loadConfig({ TRACECHECK_MAX_OPEN_TRACES: '7', TRACECHECK_MAX_OPEN_TRACE_BYTES: '1048576', TRACECHECK_MAX_ROOTLESS_TRACES: '3' }).assembler.caps).toEqual({ maxOpenTraces: 7, maxOpenBytes: 1_048_576, maxRootlessTraces: 3 });
    expect(() => loadConfig({ TRACECHECK_MAX_SPANS_PER_TRACE: '0' })).toThrow(/TRACECHECK_MAX_SPANS_PER_TRACE: Too small/);
  });

  it('spills open traces to a directory under the OS temp directory, 16 MiB segments, unless told otherwise', () => {
    expect(loadConfig({}).spill).toEqual({ dir: join(tmpdir(), 'tracecheck-spill'), segmentBytes: 16 * 1024 * 1024 });
    expect(loadConfig({ TRACECHECK_SPILL_DIR: '/var/tmp/tc', TRACECHECK_SPILL_SEGMENT_BYTES: '65536' }).spill).toEqual({ dir: '/var/tmp/tc', segmentBytes: 65_536 });
    expect(() => loadConfig({ TRACECHECK_SPILL_SEGMENT_BYTES: '100' })).toThrow(/TRACECHECK_SPILL_SEGMENT_BYTES: Too small/);
  });

  it("bounds DuckDB's memory at 256MB unless told, and refuses what is not a size", () => {
    expect(loadConfig({}).duckdbMemoryLimit).toBe('256MB');
    expect(loadConfig({ TRACECHECK_DUCKDB_MEMORY_LIMIT: '' }).duckdbMemoryLimit).toBe('256MB');
    expect(loadConfig({ TRACECHECK_DUCKDB_MEMORY_LIMIT: '1GiB' }).duckdbMemoryLimit).toBe('1GiB');
    expect(() => loadConfig({ TRACECHECK_DUCKDB_MEMORY_LIMIT: "256MB'; DROP TABLE units" })).toThrow(/TRACECHECK_DUCKDB_MEMORY_LIMIT: a size such as 256MB or 1GiB/);
  });

  it('lets a scorer hold 1,024 units at once unless told otherwise', () => {
    // 256 filled up behind a slow ClickHouse at 2,000 spans/s and stopped the units consumer.
    expect(loadConfig({}).scorerConcurrency).toBe(1024);
    expect(loadConfig({ TRACECHECK_SCORER_CONCURRENCY: '16' }).scorerConcurrency).toBe(16);
  });

  it('converts exports on one worker thread fewer than the cores (at most 4) unless told, 0 meaning the main thread', () => {
    expect(loadConfig({}).collectorWorkers).toBe(Math.max(0, Math.min(4, availableParallelism() - 1)));
    expect(loadConfig({ TRACECHECK_COLLECTOR_WORKERS: '0' }).collectorWorkers).toBe(0);
    expect(loadConfig({ TRACECHECK_COLLECTOR_WORKERS: '3' }).collectorWorkers).toBe(3);
    expect(() => loadConfig({ TRACECHECK_COLLECTOR_WORKERS: '-1' })).toThrow(ConfigError);
  });

  it('reads the alert interval, at least 100 ms', () => {
    expect(loadConfig({ TRACECHECK_ALERT_INTERVAL_MS: '5000' }).alerter.intervalMs).toBe(5_000);
    expect(() => loadConfig({ TRACECHECK_ALERT_INTERVAL_MS: '50' })).toThrow(/TRACECHECK_ALERT_INTERVAL_MS: Too small/);
  });

  it('reads the code sandbox: 2 processes per project, 4 in all, of 256 MB by default, bounded', () => {
    expect(loadConfig({}).sandbox).toEqual({ processes: 2, totalProcesses: 4, memoryMb: 256 });
    expect(loadConfig({ TRACECHECK_SANDBOX_PROCESSES: '4', TRACECHECK_SANDBOX_MEMORY_MB: '512' }).sandbox).toEqual({ processes: 4, totalProcesses: 4, memoryMb: 512 });
    expect(loadConfig({ TRACECHECK_SANDBOX_PROCESSES: '8' }).sandbox.totalProcesses).toBe(8);
    expect(loadConfig({ TRACECHECK_SANDBOX_TOTAL_PROCESSES: '12' }).sandbox).toEqual({ processes: 2, totalProcesses: 12, memoryMb: 256 });
    expect(() => loadConfig({ TRACECHECK_SANDBOX_PROCESSES: '0' })).toThrow(/TRACECHECK_SANDBOX_PROCESSES: Too small/);
    expect(() => loadConfig({ TRACECHECK_SANDBOX_MEMORY_MB: '64' })).toThrow(/TRACECHECK_SANDBOX_MEMORY_MB: Too small/);
    expect(() => loadConfig({ TRACECHECK_SANDBOX_MEMORY_MB: '100000' })).toThrow(/TRACECHECK_SANDBOX_MEMORY_MB: Too big/);
  });

  it('reads Kafka, ClickHouse and the judge', () => {
    const c = loadConfig({
      TRACECHECK_KAFKA_BROKERS: 'a:9092, b:9092',
      TRACECHECK_CLICKHOUSE_URL: 'http://ch:8123',
      OPENAI_BASE_URL: 'http://127.0.0.1:8787/v1',
      TRACECHECK_JUDGE_MODEL: 'gpt-4.1',
    });
    expect(c.kafka?.brokers).toEqual(['a:9092', 'b:9092']);
    expect(c.clickhouse).toMatchObject({ url: 'http://ch:8123', database: 'tracecheck' });
    expect(c.judge).toMatchObject({ baseUrl: 'http://127.0.0.1:8787/v1', model: 'gpt-4.1', apiKey: 'not-needed' });
    expect(c.judgeUnavailableReason).toBeNull();
  });

  it('reads a replicated ClickHouse: replica URLs, the cluster and the insert quorum', () => {
    expect(loadConfig({ TRACECHECK_CLICKHOUSE_URL: 'http://ch:8123' }).clickhouse).toMatchObject({ cluster: undefined, insertQuorum: undefined });
    const c = loadConfig({ TRACECHECK_CLICKHOUSE_URL: 'http://ch1:8123, http://ch2:8123', TRACECHECK_CLICKHOUSE_CLUSTER: 'tc_cluster', TRACECHECK_CLICKHOUSE_INSERT_QUORUM: '2' });
    expect(c.clickhouse).toMatchObject({ url: 'http://ch1:8123, http://ch2:8123', cluster: 'tc_cluster', insertQuorum: 2 });
    expect(() => loadConfig({ TRACECHECK_CLICKHOUSE_URL: 'http://ch1:8123,not a url' })).toThrow(/TRACECHECK_CLICKHOUSE_URL: a URL, or URLs separated by commas/);
    expect(() => loadConfig({ TRACECHECK_CLICKHOUSE_URL: 'http://ch:8123', TRACECHECK_CLICKHOUSE_CLUSTER: "c'; DROP" })).toThrow(/TRACECHECK_CLICKHOUSE_CLUSTER: must be a plain identifier/);
  });

  it('reads the topic prefix and the lag settings', () => {
    const defaults = loadConfig({ TRACECHECK_KAFKA_BROKERS: 'a:9092' });
    expect([defaults.kafkaPrefix, defaults.kafka?.lagIntervalMs, defaults.lagBehindRecords]).toEqual(['tracecheck', 5_000, 10_000]);
    const c = loadConfig({ TRACECHECK_KAFKA_BROKERS: 'a:9092', TRACECHECK_KAFKA_PREFIX: 'staging.tc', TRACECHECK_LAG_INTERVAL_MS: '1000', TRACECHECK_LAG_BEHIND_RECORDS: '50' });
    expect([c.kafkaPrefix, c.kafka?.lagIntervalMs, c.lagBehindRecords]).toEqual(['staging.tc', 1_000, 50]);
    expect(() => loadConfig({ TRACECHECK_KAFKA_PREFIX: 'a b' })).toThrow(/TRACECHECK_KAFKA_PREFIX: letters, digits/);
  });

  it('lists every problem at once', () => {
    let err: unknown;
    try {
      loadConfig({ TRACECHECK_API_PORT: 'eighty', TRACECHECK_CLICKHOUSE_URL: 'not a url', TRACECHECK_CLICKHOUSE_DATABASE: 'x; DROP', TRACECHECK_LOG_LEVEL: 'loud' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.map((p) => p.split(':')[0]);
    expect(problems.sort()).toEqual(['TRACECHECK_API_PORT', 'TRACECHECK_CLICKHOUSE_DATABASE', 'TRACECHECK_CLICKHOUSE_URL', 'TRACECHECK_LOG_LEVEL']);
  });
});
