import { describe, expect, it } from 'vitest';
import { upBanner } from './up.ts';

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
