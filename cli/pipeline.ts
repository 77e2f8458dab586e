import { topicsFor, type Bus, type ConsumerLag, type TopicNames } from '../shared/adapters/bus/index.ts';
import type { CodeRunner, JudgeClient } from '../shared/engines/checks/contract.ts';
import { metricsPortFor, type Config } from '../shared/runtime/config/index.ts';
import type { WindowStage } from '../shared/kit/stage/index.ts';
import type { Component } from '../shared/runtime/lifecycle/index.ts';
import type { Logger } from '../shared/runtime/logging/index.ts';
import type { Store } from '../shared/adapters/store/index.ts';
import { createCodeSandbox } from '../shared/engines/code-sandbox/index.ts';
import { createApiServer, scorerBacklog, type DocumentRedaction } from '../services/api/src/index.ts';
import { createAssembler } from '../services/assembler/src/index.ts';
import { createCollector, createRedaction } from '../services/collector/src/index.ts';
import { createCheckSelector, createEvaluationExporter, createEvaluationIntake, createOtlpSender, createScorer, type EvaluationExporter } from '../services/scorer/src/index.ts';
import { createBus, createStore, resolveChecks } from './compose.ts';
import { topicsOf } from './topology.ts';
import { createJudge, loadRegistry } from './check-runtime.ts';
import { createSessionAggregator, createSessionRouter } from '../services/assembler/src/index.ts';
import { DEFAULT_PRICES } from '../shared/engines/judge/index.ts';
import { loadMonitorsFile } from '../shared/engines/monitors/index.ts';
import { loadPriceTable } from '../shared/engines/pricing/index.ts';
import type { CheckSelector } from '../services/scorer/src/index.ts';
import { createKeyring, createMetricsAccess, type AuthResult, type Keyring } from '../shared/kit/access/index.ts';
import { createAlerter, createProblemMiner, createSmtpMailer, type Alerter } from '../services/alerter/src/index.ts';
import type { Authorize } from '../services/collector/src/index.ts';
import { createAddressMatcher } from '../shared/runtime/http/index.ts';
import { createRetentionJob, type RetentionJob } from '../shared/kit/retention/index.ts';
import { RETAINED_DOC_KINDS } from './retained-docs.ts';
import { createConsumerLagReporter, createMetrics, createMetricsServer, withJudgeMetrics, type Metrics } from '../shared/kit/metrics/index.ts';
import { pipelineStatusReporter } from './pipeline-status.ts';
import { prepareBackfill, type BackfillRequest } from './backfill-job.ts';

export type ServiceName = 'collector' | 'assembler' | 'scorer' | 'api' | 'alerter';

export interface Pipeline {
  components: Component[];
  bus: Bus;
  store: Store | null;
  /** API keys over the store (null without a store). */
  keyring: Keyring | null;
  /** The alerter, when asked for (tests drive its evaluations). */
  alerter: Alerter | null;
  /** The checks the scorer runs, by name (`TRACECHECK_CHECKS` expanded); empty without a scorer. */
  checkNames: readonly string[];
  /** The scorer's judge (null without a scorer or a judge). */
  judge: JudgeClient | null;
  /** Which checks run on which units (monitors); null without a scorer. */
  checkSelector: CheckSelector | null;
  /** Retention (removal of old rows, table sizes), in the process that runs the API; null elsewhere. */
  retention: RetentionJob | null;
  /** The process's metrics (one registry), served at GET /metrics by the API, else the collector, else a metrics server. */
  metrics: Metrics;
  /** `http://host:port` of the metrics server, when the process runs neither API nor collector. */
  metricsUrl(): string;
  collectorUrl(): string;
  /** `host:port` of the OTLP/gRPC receiver (after start). */
  collectorGrpcAddress(): string;
  apiUrl(): string;
}

export interface PipelineOverrides {
  /** A judge to use instead of the configured one (the demo's local model server). */
  judge?: JudgeClient;
  topics?: Partial<TopicNames>;
  /** Consumer groups (tests give each run its own). */
  groups?: { assembler?: string; scorer?: string; sessions?: string; problems?: string };
  /** The alerter's clock (tests move it to let windows pass). */
  alerterNow?: () => number;
  /** The retention job's clock (tests move it forward). */
  retentionNow?: () => number;
}

/** With no keys at all, spans carry no project (the default one), exactly as before keys existed. */
function openAsDefault(auth: AuthResult): Awaited<ReturnType<Authorize>> {
  if (!auth.ok) return auth;
  return { ok: true, project: auth.role === 'open' ? undefined : auth.project };
}

/**
 * Builds the named services over one bus and one store. `tracecheck up` asks for all four, which
 * is the embedded mode when neither Kafka nor ClickHouse is configured: same code, two adapters.
 */
export function buildPipeline(config: Config, log: Logger, services: ReadonlySet<ServiceName>, overrides: PipelineOverrides = {}): Pipeline {
  const topics: TopicNames = { ...topicsFor(config.kafkaPrefix), ...overrides.topics };
  const groupOf = (name: 'assembler' | 'scorer' | 'sessions' | 'problems'): string => overrides.groups?.[name] ?? `${config.kafkaPrefix}-${name}`;
  const { bus, close: closeBus, holdings: busHoldings } = createBus(config, log);
  // The collector reads API keys from the store: ClickHouse when configured, or the embedded store
  // it shares with the other stages. A collector alone on Kafka without ClickHouse has none to read.
  const collectorReadsKeys = services.has('collector') && (config.clickhouse !== null || !config.kafka);
  // The session assembler re-opens a session published before a restart from the stored unit.
  const assemblerReadsSessions = services.has('assembler') && (config.clickhouse !== null || !config.kafka);
  const needsStore = services.has('scorer') || services.has('api') || services.has('alerter') || collectorReadsKeys || assemblerReadsSessions;
  const store = needsStore ? createStore(config, log) : null;
  const keyring = store ? createKeyring({ store, log: log.child({ component: 'keys' }) }) : null;
  if (services.has('collector') && !collectorReadsKeys) log.warn('collector without a ClickHouse store: API keys are not enforced on ingest');
  // First in, so stopped last: every producer and consumer is done with the bus when it closes.
  const components: Component[] = [{ name: 'bus', start: () => Promise.resolve(), shutdown: closeBus }];
  // Every topic the chosen stages read or write (the declared topology), before any of them starts.
  components.push({ name: 'topics', start: () => bus.ensureTopics(topicsOf(services).map((key) => topics[key])), shutdown: () => Promise.resolve() });
  if (store) components.push(store);
  const metrics = createMetrics();
  if (busHoldings) metrics.observeBus(busHoldings);
  if (store?.memoryBytes) metrics.observeStoreMemory(store.memoryBytes.bind(store));
  const lag = createConsumerLagReporter({ metrics, log, nowMs: Date.now, behindRecords: config.lagBehindRecords });
  const onLag = (measured: ConsumerLag): void => lag.record(measured);

  let checkNames: string[] = [];
  let scorerJudge: JudgeClient | null = null;
  let checkSelector: CheckSelector | null = null;
  let evaluationExporter: EvaluationExporter | null = null;
  let apiUrl = (): string => '';
  let sessionAggregator: WindowStage | null = null;
  let retention: RetentionJob | null = null;
  let collectorUrl = (): string => '';
  let collectorGrpcAddress = (): string => '';
  let refusedTraces: ((project: string | undefined, traceIds: ReadonlySet<string>) => void) | null = null;
  // The scorer's sandbox also runs users' code checks for the API's POST /api/v1/checks/score and /checks/{name}/try.
  let apiCodeRunner: CodeRunner | undefined;

  // Downstream first, so that nothing is accepted before something can take it.
  if (services.has('scorer')) {
    const baseJudge = overrides.judge ?? createJudge(config, log.child({ component: 'judge' }), undefined, { onRetry: () => metrics.judgeRetries.inc() });
    scorerJudge = baseJudge;
    // Counted once, beneath every monitor's budget wrapper, so every judge call shows in /metrics.
    const judge = baseJudge ? withJudgeMetrics(baseJudge, metrics) : null;
    // Users' code checks run in a pool of sandbox processes, started on first use and killed at shutdown.
    const sandbox = createCodeSandbox({ ...config.sandbox, log: log.child({ component: 'code-sandbox' }) });
    components.push({ name: 'code-sandbox', start: () => Promise.resolve(), shutdown: () => sandbox.close() });
    apiCodeRunner = sandbox;
    const checks = resolveChecks(config);
    checkNames = checks.map((c) => c.name);
    const prices = { ...DEFAULT_PRICES, ...config.judgePrices };
    const selector = createCheckSelector({
      store: store!,
      createRegistry: () => loadRegistry(config.checkDefinitionsFile ?? undefined),
      fileMonitors: config.monitorsFile ? loadMonitorsFile(config.monitorsFile) : [],
      defaultChecks: { trace: checkNames, session: resolveChecks(config, 'session').map((c) => c.name) },
      judge,
      prices,
      pollMs: config.configPollMs,
      log,
      now: Date.now,
    });
    checkSelector = selector;
    components.push({ name: 'check-selector', start: () => selector.start(), shutdown: () => selector.shutdown() });
    const exportTo = config.evaluationExport;
    if (exportTo) {
      const exporter = createEvaluationExporter({ sender: createOtlpSender(exportTo), protocol: exportTo.protocol, endpoint: exportTo.endpoint, maxQueue: exportTo.maxQueue, resource: { serviceName: 'tracecheck' }, metrics, log });
      evaluationExporter = exporter;
      // Before the scorer, so stopped after it: the last unit's scores are queued before the last send.
      components.push({ name: 'evaluation-export', start: () => Promise.resolve(), shutdown: () => exporter.close(Math.min(5_000, config.shutdownTimeoutMs / 2)) });
    }
    components.push(
      createScorer(
        {
          unitsTopic: topics.units,
          scoresTopic: topics.scores,
          groupId: groupOf('scorer'),
          maxConcurrentUnits: config.scorerConcurrency,
          readAhead: config.projectShares.scorerReadAhead,
          judgeUnavailableReason: judge ? null : config.judgeUnavailableReason,
          simulationWaitMs: config.simulationWaitMs,
          contentRefs: config.contentRefs,
          prices,
          // Embedded mode: a unit stored without its scores by a crash is scored at the next start.
          sweepUnscored: store!.kind === 'duckdb',
        },
        { bus, store: store!, log, checks, judge, selectChecks: (unit) => selector.select(unit), codeRunner: sandbox, metrics, onLag, ...(evaluationExporter ? { exporter: evaluationExporter } : {}) },
      ),
      // Other tools' evaluation events (gen_ai.evaluation.result) on the spans topic, as external scores.
      createEvaluationIntake({ spansTopic: topics.spans, scoresTopic: topics.scores, groupId: `${groupOf('scorer')}-evaluations` }, { bus, store: store!, log, onLag }),
    );
  }
  if (services.has('assembler')) {
    sessionAggregator = createSessionAggregator(
      { sessionsTopic: topics.sessions, unitsTopic: topics.units, groupId: groupOf('sessions'), idleMs: config.sessionIdleMs, spill: config.spill },
      { bus, log, onLag, ...(store && assemblerReadsSessions ? { loadSessions: (ids: readonly string[], project: string) => store.getUnits(ids, project) } : {}) },
    );
    const traceAssembler = createAssembler(
      {
        spansTopic: topics.spans,
        unitsTopic: topics.units,
        groupId: groupOf('assembler'),
        graceMs: config.assembler.traceGraceMs,
        completeGraceMs: config.assembler.traceCompleteGraceMs,
        entryGraceMs: config.assembler.traceEntryGraceMs,
        maxOpenMs: config.assembler.traceMaxOpenMs,
        maxSpansPerTrace: config.assembler.maxSpansPerTrace,
        replayRecords: config.assembler.replayRecords,
        caps: { ...config.assembler.caps, projectShares: config.projectShares },
        holdOpenTraces: config.assembler.holdOpenTraces,
        spill: config.spill,
        prices: loadPriceTable(config.pricesFile),
      },
      { bus, log, metrics, onLag },
    );
    // The collector of this process tells it which traces' exports it refused (429, 503).
    refusedTraces = (project, traceIds) => traceAssembler.refused(project, traceIds);
    components.push(
      traceAssembler,
      sessionAggregator,
      // After the aggregator, so stopped before it: nothing is routed to an aggregator that stopped.
      createSessionRouter({ unitsTopic: topics.units, sessionsTopic: topics.sessions, groupId: `${groupOf('sessions')}-route` }, { bus, log, onLag }),
    );
  }
  if (services.has('api')) {
    // The dashboard describes every check the registry knows, and which ones the scorer runs.
    const registry = loadRegistry(config.checkDefinitionsFile ?? undefined);
    const api = createApiServer({
      host: config.host,
      port: config.ports.api,
      store: store!,
      log,
      createRegistry: () => loadRegistry(config.checkDefinitionsFile ?? undefined),
      // generate_check's model: the scorer's judge when this process scores, else one of its own.
      judge: scorerJudge ?? createJudge(config, log.child({ component: 'judge' })),
      ...(apiCodeRunner ? { codeRunner: apiCodeRunner } : {}),
      ...(keyring ? { keyring } : {}),
      checks: {
        registry,
        // The scorer's own inputs (wherever it runs), so the plan the pages show is the plan it runs.
        live: resolveChecks(config).map((c) => c.name),
        sessionLive: resolveChecks(config, 'session').map((c) => c.name),
        fileMonitors: config.monitorsFile ? loadMonitorsFile(config.monitorsFile) : [],
        ...(services.has('scorer') ? { unitsWaiting: () => scorerBacklog(lag.health(), groupOf('scorer'), topics.units) } : {}),
      },
      metrics,
      retention: { days: config.retention.days, allowLonger: config.retention.allowLonger },
      // `tracecheck backfill` runs here while this process holds the embedded store.
      ...(apiCodeRunner ? { prepareBackfill: (req: BackfillRequest) => prepareBackfill({ store: store!, config, log, judge: scorerJudge, codeRunner: apiCodeRunner }, req) } : {}),
      // Dialogs posted to the API are unit content that never passed the collector.
      ...withRedaction(createRedaction(config.redaction, metrics)),
      security: {
        alertTargets: { allow: createAddressMatcher(config.alerter.allowPrivateTargets) },
        trustedProxies: createAddressMatcher(config.trustedProxies),
        metricsToken: config.metricsToken,
        alertLimits: config.alerter.limits,
      },
    });
    apiUrl = () => api.url();
    components.push(api);
    // One process per deployment runs the API's store work; retention runs beside it.
    retention = createRetentionJob({
      store: store!,
      days: config.retention.days,
      intervalMs: config.retention.intervalMs,
      docKinds: RETAINED_DOC_KINDS,
      allowLonger: config.retention.allowLonger,
      now: overrides.retentionNow ?? Date.now,
      log,
      metrics,
    });
    components.push(retention);
  }
  let alerter: Alerter | null = null;
  if (services.has('alerter')) {
    // Links in Slack messages go to this process's API when it runs one, else to the configured port.
    const apiBase = (): string => apiUrl() || `http://${config.host}:${config.ports.api}`;
    alerter = createAlerter({
      store: store!,
      log,
      intervalMs: config.alerter.intervalMs,
      outbound: { allow: createAddressMatcher(config.alerter.allowPrivateTargets) },
      unitLink: (id) => `${apiBase()}/units/${encodeURIComponent(id)}`,
      metrics,
      ...(config.alerter.smtp ? { sendMail: createSmtpMailer(config.alerter.smtp) } : {}),
      limits: config.alerter.limits,
      ...(overrides.alerterNow ? { now: overrides.alerterNow } : {}),
    });
    components.push(alerter);
    // After the alerter, so stopped before it: the last problems found are stored before it stops.
    components.push(createProblemMiner({ scoresTopic: topics.scores, groupId: groupOf('problems') }, { bus, store: store!, log, onLag }));
  }
  if (services.has('collector')) {
    // Kafka: 429 while the assembler's group is too far behind on the spans topic (the in-process
    // bus applies the same bound to every topic by itself).
    const producer = bus.createProducer({ refuseWhenBehind: { topic: topics.spans, groups: [groupOf('assembler')], maxRecords: config.backlogMaxRecords } });
    const collector = createCollector({
      config: {
        host: config.host,
        httpPort: config.ports.otlpHttp,
        grpcPort: config.ports.otlpGrpc,
        limits: config.limits,
        topic: topics.spans,
        redaction: config.redaction,
        workers: config.collectorWorkers,
        // Only the in-process bus carries parsed records to its consumers.
        parsedRecords: !config.kafka,
        trustedProxies: createAddressMatcher(config.trustedProxies),
        langfuseKeys: config.langfuseKeys,
        projectShares: { maxRootlessTraces: config.projectShares.maxRootlessTraces, maxRootlessBytes: config.projectShares.maxOpenBytes, maxOpenMs: config.assembler.traceMaxOpenMs },
      },
      producer,
      ...(refusedTraces ? { onRefused: refusedTraces } : {}),
      ...(keyring ? { authorize: (header: string | undefined) => keyring.authenticate(header, ['ingest']).then(openAsDefault), metricsAccess: createMetricsAccess(keyring, config.metricsToken) } : {}),
      metrics,
      log,
    });
    collectorUrl = () => collector.httpAddress();
    collectorGrpcAddress = () => collector.grpcAddress();
    components.push(
      producer,
      collector,
    );
  }
  // Every process with a store says what it has waiting, for the API's GET /api/v1/pipeline.
  if (store) components.push(pipelineStatusReporter({ config, store, log, services, topics, groupOf, lag, busHoldings, judge: scorerJudge, metrics, openSessions: sessionAggregator ? () => sessionAggregator.openCount() : null, evaluationExport: evaluationExporter ? () => evaluationExporter.status() : null }));
  let metricsUrl = (): string => '';
  if (!services.has('api') && !services.has('collector')) {
    const server = createMetricsServer({ host: config.host, port: metricsPortFor(config.ports.metrics, services), metrics, log, health: () => lag.health() });
    metricsUrl = () => server.url();
    components.push(server);
  }
  return { components, bus, store, keyring, alerter, retention, checkNames, judge: scorerJudge, checkSelector, metrics, metricsUrl: () => metricsUrl(), collectorUrl: () => collectorUrl(), collectorGrpcAddress: () => collectorGrpcAddress(), apiUrl: () => apiUrl() };
}

function withRedaction(redaction: DocumentRedaction | undefined): { redaction?: DocumentRedaction } {
  return redaction ? { redaction } : {};
}
