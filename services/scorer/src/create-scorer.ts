import type { Bus, ConsumerLag } from '../../../shared/adapters/bus/index.ts';
import type { CodeRunner, JudgeClient, RunnableCheck } from '../../../shared/engines/checks/contract.ts';
import { costUsd, type PriceTable } from '../../../shared/engines/judge/index.ts';
import { createRecentOutputs } from '../../../shared/engines/checks/index.ts';
import type { Component } from '../../../shared/runtime/lifecycle/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import type { Metrics } from '../../../shared/kit/metrics/index.ts';
import { DEFAULT_SCORER_CONCURRENCY, type ContentRefSettings } from '../../../shared/runtime/config/index.ts';
import { createContentRefFetcher, withFetchedDialog } from '../../../shared/kit/content-refs/index.ts';
import { parseUnit, type Unit } from '../../../shared/contracts/schemas/index.ts';
import { createRecordStage } from '../../../shared/kit/stage/index.ts';
import type { Store } from '../../../shared/adapters/store/index.ts';
import type { SelectedCheck } from './score-unit.ts';
import { createSimulationWaiter } from './simulation-waiter.ts';
import { sweepUnscored } from './sweep-unscored.ts';
import { createUnitHandler } from './unit-handler.ts';
import type { EvaluationExporter } from './evaluation-export/exporter.ts';

export interface ScorerConfig {
  unitsTopic: string;
  scoresTopic: string;
  groupId: string;
  /** Units scored at once (judge calls of different units overlap; store writes are batched across them). Default 1,024 (a slow store then holds bigger batches, not a full window that stops the consumer). */
  maxConcurrentUnits?: number;
  /**
   * Units read ahead of those being scored, and their bytes, at most (default: maxConcurrentUnits,
   * no byte bound). Projects take turns among the units read: each project's in the order
   * published, the projects round robin, so one project's backlog read ahead delays another
   * project's unit by one turn, not by the backlog.
   */
  readAhead?: { units: number; bytes: number };
  /** Units per store write, at most. Default 500. */
  maxBatchUnits?: number;
  /** Why model checks cannot run (no judge configured); null when they can. */
  judgeUnavailableReason: string | null;
  /** How long a simulation's unit waits for the simulation's own dialog. Unset: it does not wait. */
  simulationWaitMs?: number;
  /** Where messages recorded by reference may be fetched from (TRACECHECK_CONTENT_REF_*); absent or no prefix: not fetched. */
  contentRefs?: ContentRefSettings;
  /** USD per million tokens by judge model, for the cost of each judge call. Unset: no cost. */
  prices?: PriceTable;
  /**
   * At start, score every stored unit that has no score (a crash between the two writes, or units
   * from before the bus kept its records): needs a store with `unscoredUnitIds` (the embedded one).
   */
  sweepUnscored?: boolean;
}

export interface ScorerDeps {
  bus: Bus;
  store: Store;
  log: Logger;
  /** Without `selectChecks`: every unit gets these checks, with `judge`. */
  checks: readonly RunnableCheck[];
  judge: JudgeClient | null;
  /** Which checks run on this unit (monitors: filters, sampling, budgets). */
  selectChecks?: (unit: Unit) => SelectedCheck[];
  /** Runs users' code checks in isolation; without it they are scored `not_run`. */
  codeRunner?: CodeRunner;
  /** Counts scores written by check and status, and how far scoring trails the agents. */
  metrics?: Metrics;
  /** Receives the units consumer's lag. */
  onLag?: (lag: ConsumerLag) => void;
  nowMs?: () => number;
  /** Every score written also goes out as an evaluation record (TRACECHECK_EXPORT_OTLP_ENDPOINT); closed after the last unit. */
  exporter?: EvaluationExporter;
}

/**
 * Consumes units, stores each with the scores of its checks, and publishes the scores: a record
 * stage (shared/kit/stage), so many units are scored at once, versions of one unit in the order they
 * were published, and the kit and the bus own retries, refusals and what is read again after a
 * crash (at least once; score writes are idempotent).
 */
export function createScorer(config: ScorerConfig, deps: ScorerDeps): Component {
  const log = deps.log.child({ component: 'scorer' });
  const nowMs = deps.nowMs ?? Date.now;
  const producer = deps.bus.createProducer();
  const stopping = new AbortController();
  const { prices, simulationWaitMs } = config;
  const fetchRef = config.contentRefs ? createContentRefFetcher(config.contentRefs) : null;
  const units = createUnitHandler({
    store: deps.store,
    producer,
    scoresTopic: config.scoresTopic,
    maxBatchUnits: config.maxBatchUnits ?? 500,
    score: {
      checks: deps.checks,
      judge: deps.judge,
      judgeUnavailableReason: config.judgeUnavailableReason,
      nowMs,
      recentOutputs: createRecentOutputs(),
      ...(deps.selectChecks ? { selectChecks: deps.selectChecks } : {}),
      ...(deps.codeRunner ? { codeRunner: deps.codeRunner } : {}),
      ...(prices ? { costUsd: (model: string, input: number, output: number) => costUsd(prices, model, input, output) } : {}),
      // Shutdown ends the waits: those units are scored with the reason, not held.
      ...(fetchRef ? { fetchDialog: (unit: Unit) => withFetchedDialog(unit, fetchRef) } : {}),
      ...(simulationWaitMs !== undefined ? { simulationDialog: createSimulationWaiter({ store: deps.store, waitMs: simulationWaitMs, now: nowMs, signal: stopping.signal }) } : {}),
    },
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    ...(deps.exporter ? { exporter: deps.exporter } : {}),
    log,
  });
  let sweep: Promise<void> = Promise.resolve();
  const running = config.maxConcurrentUnits ?? DEFAULT_SCORER_CONCURRENCY;

  return createRecordStage(
    {
      name: 'scorer',
      in: config.unitsTopic,
      out: [config.scoresTopic],
      groupId: config.groupId,
      maxRunning: running,
      maxInFlight: Math.max(running, config.readAhead?.units ?? running),
      ...(config.readAhead ? { maxInFlightBytes: config.readAhead.bytes } : {}),
    },
    {
      bus: deps.bus,
      log: deps.log,
      producer,
      parse: parseUnit,
      // Two versions of one unit in flight at once (a late span re-opened its trace while the first
      // was still being judged) are stored in the order they were published: the later is the later revision.
      keyOf: (unit) => `${unit.project ?? 'default'}\u0000${unit.unit_id}`,
      shareOf: (unit) => unit.project ?? 'default',
      run: (unit) => units.handle(unit),
      started: () => {
        if (!config.sweepUnscored) return;
        sweep = sweepUnscored({ store: deps.store, producer, unitsTopic: config.unitsTopic, signal: stopping.signal, log }).catch((err: unknown) =>
          log.error({ err }, 'the sweep for unscored units failed; they are scored at the next start'),
        );
      },
      stopping: async () => {
        stopping.abort();
        await sweep;
      },
      drained: () => units.idle(),
      ...(deps.onLag ? { onLag: deps.onLag } : {}),
    },
  );
}
