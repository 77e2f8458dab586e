import { describe, expect, it } from 'vitest';
import { ConfigSchema, loadConfig } from '../../shared/runtime/config/index.ts';
import { upBanner, upCommand, upLogLevel } from './up.ts';

describe('upBanner', () => {
  it('lists the dashboard beside OTLP, the API and the alert rules', () => {
    expect(upBanner({ mode: 'in-process bus + DuckDB', collectorUrl: 'http://127.0.0.1:4318', apiUrl: 'http://127.0.0.1:8080', alertIntervalMs: 60_000 })).toBe(
      [
        'tracecheck is up (in-process bus + DuckDB)',
        '  dashboard          http://127.0.0.1:8080/',
        '  send OTLP/HTTP to  http://127.0.0.1:4318/v1/traces   (OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318)',
        '  API                http://127.0.0.1:8080/api/v1/scores',
        '  alert rules        http://127.0.0.1:8080/api/v1/alert-rules   (evaluated every 60000 ms)',
        '',
      ].join('\n'),
    );
  });

  it('leaves the alert rules out when no alerter runs', () => {
    expect(upBanner({ mode: 'Kafka + ClickHouse', collectorUrl: 'http://h:1', apiUrl: 'http://h:2', alertIntervalMs: null }).split('\n')).toEqual([
      'tracecheck is up (Kafka + ClickHouse)',
      '  dashboard          http://h:2/',
      '  send OTLP/HTTP to  http://h:1/v1/traces   (OTEL_EXPORTER_OTLP_ENDPOINT=http://h:1)',
      '  API                http://h:2/api/v1/scores',
      '',
    ]);
  });
});

describe('up --help', () => {
  it("lists the settings a first run needs with the defaults the configuration applies", () => {
    const listed = [...upCommand.usage.matchAll(/^ {2}((?:TRACECHECK|OPENAI)_[A-Z_]+)=(\S+)/gm)].map((m) => [m[1], m[2]]);
    expect(listed.map(([name]) => name)).toEqual(['TRACECHECK_API_PORT', 'TRACECHECK_OTLP_HTTP_PORT', 'TRACECHECK_OTLP_GRPC_PORT', 'TRACECHECK_HOST', 'TRACECHECK_DATA_DIR', 'TRACECHECK_CHECKS', 'TRACECHECK_JUDGE_MODEL']);
    const applied = (name: string): string =>
      name === 'TRACECHECK_JUDGE_MODEL' ? (loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }).judge?.model ?? '') : String((ConfigSchema.shape as Record<string, { parse(v: unknown): unknown }>)[name].parse(undefined));
    expect(listed.map(([name]) => [name, applied(name)])).toEqual(listed);
    for (const name of ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'TRACECHECK_KAFKA_BROKERS', 'TRACECHECK_CLICKHOUSE_URL', 'TRACECHECK_LOG_LEVEL']) expect(upCommand.usage).toContain(name);
  });

  it('logs warnings only when a person watches the banner (a terminal, or the demo), info under a supervisor', () => {
    expect([upLogLevel({ demo: false, terminal: true }), upLogLevel({ demo: true, terminal: false }), upLogLevel({ demo: false, terminal: false })]).toEqual(['warn', 'warn', 'info']);
  });
});
