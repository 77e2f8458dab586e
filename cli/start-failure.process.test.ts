import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiServer } from '../services/api/src/index.ts';
import { createCollector } from '../services/collector/src/index.ts';
import { createRecordingProducer } from '../services/collector/src/testing/recording-producer.ts';
import { DEFAULT_METRICS_PORTS, loadConfig, metricsPortFor } from '../shared/runtime/config/index.ts';
import { PortInUseError } from '../shared/runtime/errors/index.ts';
import { createSilentLogger } from '../shared/runtime/logging/index.ts';
import { createMetrics, createMetricsServer } from '../shared/kit/metrics/index.ts';
import { createDuckDbStore } from '../shared/adapters/store/index.ts';
import { startFailureMessage } from './start-failure.ts';

const log = createSilentLogger();
const occupied: Server[] = [];
afterEach(async () => {
  for (const s of occupied.splice(0)) await new Promise((resolve) => s.close(resolve));
});

/** A port some other process holds. */
async function takenPort(): Promise<number> {
  const server = createServer();
  occupied.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('default metrics ports', () => {
  it('differ per service, so the assembler, scorer and alerter started together never collide', () => {
    const ports = (['assembler', 'scorer', 'alerter'] as const).map((s) => metricsPortFor(null, new Set([s])));
    expect(ports).toEqual([9464, 9465, 9466]);
    expect(new Set([...ports, 4317, 4318, 8080]).size).toBe(6);
    expect(metricsPortFor(null, new Set(['scorer', 'alerter']))).toBe(DEFAULT_METRICS_PORTS.scorer);
    expect(metricsPortFor(9999, new Set(['scorer']))).toBe(9999);
  });
});

describe('a taken port', () => {
  it('fails the metrics server with a PortInUseError, told as one line naming TRACECHECK_METRICS_PORT', async () => {
    const port = await takenPort();
    const server = createMetricsServer({ host: '127.0.0.1', port, metrics: createMetrics(), log });
    const err = await server.start().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(PortInUseError);
    const config = loadConfig({ TRACECHECK_METRICS_PORT: String(port) });
    expect(startFailureMessage(err, config, new Set(['scorer']))).toBe(`127.0.0.1:${port} is already in use: set TRACECHECK_METRICS_PORT to a free port`);
  });

  it('names the collector\'s OTLP/HTTP and OTLP/gRPC variables', async () => {
    for (const [field, setting] of [['httpPort', 'TRACECHECK_OTLP_HTTP_PORT'], ['grpcPort', 'TRACECHECK_OTLP_GRPC_PORT']] as const) {
      const port = await takenPort();
      const collector = createCollector({
        config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, [field]: port, limits: { maxBodyBytes: 1024, maxAttributeBytes: 1024, maxSpansPerRequest: 10 } },
        producer: createRecordingProducer(),
        log,
      });
      const err = await collector.start().then(() => null, (e: unknown) => e);
      await collector.shutdown();
      expect(err).toBeInstanceOf(PortInUseError);
      const config = loadConfig({ [setting]: String(port) });
      expect(startFailureMessage(err, config, new Set(['collector']))).toBe(`127.0.0.1:${port} is already in use: set ${setting} to a free port`);
    }
  });

  it('names TRACECHECK_API_PORT for the API', async () => {
    const port = await takenPort();
    const store = createDuckDbStore({ path: ':memory:', log });
    const api = createApiServer({ host: '127.0.0.1', port, store, log });
    const err = await api.start().then(() => null, (e: unknown) => e);
    await store.shutdown();
    expect(err).toBeInstanceOf(PortInUseError);
    expect(startFailureMessage(err, loadConfig({ TRACECHECK_API_PORT: String(port) }), new Set(['api']))).toBe(`127.0.0.1:${port} is already in use: set TRACECHECK_API_PORT to a free port`);
  });
});
