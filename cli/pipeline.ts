import { TOPICS, type Bus } from '../shared/bus/index.ts';
import type { JudgeClient } from '../shared/checks/contract.ts';
import type { Config } from '../shared/config/index.ts';
import type { Component } from '../shared/lifecycle/index.ts';
import type { Logger } from '../shared/logging/index.ts';
import type { Store } from '../shared/store/index.ts';
import { createCodeSandbox } from '../shared/code-sandbox/index.ts';
import { createApiServer } from '../services/api/src/index.ts';
import { createAssembler } from '../services/assembler/src/index.ts';
import { createCollector } from '../services/collector/src/index.ts';
import { createScorer, withConcurrencyLimit } from '../services/scorer/src/index.ts';
import { createBus, createJudge, createStore, resolveChecks } from './compose.ts';

export type ServiceName = 'collector' | 'assembler' | 'scorer' | 'api';

export interface Pipeline {
  components: Component[];
  bus: Bus;
  store: Store | null;
  /** The checks the scorer runs, by name (`TRACECHECK_CHECKS` expanded); empty without a scorer. */
  checkNames: readonly string[];
  collectorUrl(): string;
  apiUrl(): string;
}

export interface PipelineOverrides {
  /** A judge to use instead of the configured one (the demo's local model server). */
  judge?: JudgeClient;
  topics?: Partial<Record<keyof typeof TOPICS, string>>;
  /** Consumer groups (tests give each run its own). */
  groups?: { assembler?: string; scorer?: string };
}

/**
 * Builds the named services over one bus and one store. `tracecheck up` asks for all four, which
 * is the embedded mode when neither Kafka nor ClickHouse is configured: same code, two adapters.
 */
export function buildPipeline(config: Config, log: Logger, services: ReadonlySet<ServiceName>, overrides: PipelineOverrides = {}): Pipeline {
  const topics: Record<keyof typeof TOPICS, string> = { ...TOPICS, ...overrides.topics };
  const bus = createBus(config, log);
  const needsStore = services.has('scorer') || services.has('api');
  const store = needsStore ? createStore(config, log) : null;
  const components: Component[] = [];
  if (store) components.push(store);

  let checkNames: string[] = [];
  let apiUrl = (): string => '';
  let collectorUrl = (): string => '';

  // Downstream first, so that nothing is accepted before something can take it.
  if (services.has('scorer')) {
    const judge = overrides.judge ?? createJudge(config, log);
    // One sandbox process for users' code checks, started on first use and closed at shutdown.
    const sandbox = createCodeSandbox({ log: log.child({ component: 'code-sandbox' }) });
    components.push({ name: 'code-sandbox', start: () => Promise.resolve(), shutdown: () => sandbox.close() });
    const checks = resolveChecks(config);
    checkNames = checks.map((c) => c.name);
    components.push(
      createScorer({
        bus,
        store: store!,
        unitsTopic: topics.units,
        scoresTopic: topics.scores,
        groupId: overrides.groups?.scorer ?? 'tracecheck-scorer',
        checks,
        judge: judge ? withConcurrencyLimit(judge, config.judge?.concurrency ?? 4) : null,
        judgeUnavailableReason: judge ? null : config.judgeUnavailableReason,
        codeRunner: sandbox,
        maxConcurrentUnits: config.scorerConcurrency,
        nowMs: Date.now,
        log,
      }),
    );
  }
  if (services.has('assembler')) {
    components.push(
      createAssembler({
        bus,
        spansTopic: topics.spans,
        unitsTopic: topics.units,
        groupId: overrides.groups?.assembler ?? 'tracecheck-assembler',
        graceMs: config.assembler.traceGraceMs,
        entryGraceMs: config.assembler.traceEntryGraceMs,
        maxOpenMs: config.assembler.traceMaxOpenMs,
        log,
      }),
    );
  }
  if (services.has('api')) {
    const api = createApiServer({ host: config.host, port: config.ports.api, store: store!, log });
    apiUrl = () => api.url();
    components.push(api);
  }
  if (services.has('collector')) {
    const producer = bus.createProducer();
    const collector = createCollector({
      config: {
        host: config.host,
        httpPort: config.ports.otlpHttp,
        grpcPort: config.ports.otlpGrpc,
        limits: config.limits,
        topic: topics.spans,
      },
      producer,
      log,
    });
    collectorUrl = () => collector.httpAddress();
    components.push(
      { name: 'collector-topics', start: () => bus.ensureTopics([topics.spans]), shutdown: () => Promise.resolve() },
      producer,
      collector,
    );
  }
  return { components, bus, store, checkNames, collectorUrl: () => collectorUrl(), apiUrl: () => apiUrl() };
}
