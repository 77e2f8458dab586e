import type { Metrics } from '../../../shared/kit/metrics/index.ts';
import {
  DEFAULT_ALERT_LIMITS,
  createAlertRepository,
  initialAlertState,
  ruleWithinLimits,
  type AlertLimits,
  newAlertEventId,
  type AlertEvent,
  type AlertRule,
  type AlertState,
  targetAddress,
  type Delivery,
  type AlertPayload,
  type ProblemRule,
  type WindowRule,
} from '../../../shared/engines/alerts/index.ts';
import { createProblemAlerts } from './problem-alerts.ts';
import { errorMessage } from '../../../shared/runtime/errors/index.ts';
import { forEachLimited } from '../../../shared/runtime/flow/index.ts';
import type { Component } from '../../../shared/runtime/lifecycle/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import type { Score } from '../../../shared/contracts/schemas/index.ts';
import type { QueryStore, ScoreQuery, Store } from '../../../shared/adapters/store/contract.ts';
import { evaluateRule, type RuleAggregates, type RuleEvaluation, type Transition } from './evaluate-rule.ts';
import type { SendMail } from './email-message.ts';
import { createNotificationQueue, type DeliveryPolicy } from './notify.ts';
import type { OutboundPolicy } from '../../../shared/runtime/http/index.ts';
import { buildPayload } from './payload.ts';
import { failingUnitsQuery, ruleQueries } from './rule-queries.ts';
import { agreementReviews } from './agreement-rule.ts';
import { createReviewRepository } from '../../../shared/engines/review/index.ts';

/** What the alerter needs of a store: the monitoring side, score listing and unit metrics. `Store` fits. */
type AlerterStore = QueryStore & { queryScores(query: ScoreQuery): Promise<Score[]> } & Pick<Store, 'unitMetrics'>;

export interface AlerterOptions {
  store: AlerterStore;
  log: Logger;
  /** Time between evaluations (`TRACECHECK_ALERT_INTERVAL_MS`). */
  intervalMs: number;
  /** The clock (tests inject one). */
  now?: () => number;
  /** Non-public hosts and ranges webhook targets may resolve to (`TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS`); default none. */
  outbound?: OutboundPolicy;
  delivery?: Partial<DeliveryPolicy>;
  /** Notifications waiting for delivery beyond this are recorded as failed. Default 1000. */
  maxQueuedNotifications?: number;
  /** Rules evaluated at once (each costs 1–2 store queries). Default 8. */
  ruleConcurrency?: number;
  /** How long shutdown lets queued deliveries finish before aborting them. Default 5000. */
  shutdownGraceMs?: number;
  /** A link to a unit for Slack messages, e.g. the API's `/api/v1/units/{id}`. */
  unitLink?: (unitId: string) => string;
  /** Counts alert deliveries by outcome. */
  metrics?: Metrics;
  /** Sends email notifications (`TRACECHECK_SMTP_URL`); absent: email targets fail, saying so. */
  sendMail?: SendMail;
  /** Whom email may reach and how often (the API refuses rules beyond them; rules stored before are held to them here). */
  limits?: AlertLimits;
}

interface EvaluationReport {
  atMs: number;
  /** Enabled rules. */
  rules: number;
  evaluated: number;
  /** Rules whose evaluation failed (logged; the others went on). */
  failed: number;
  notifications: Array<{ ruleId: string; transition: Transition }>;
  /** Problem rules' notifications: one per rule and problem state change. */
  problemNotifications: Array<{ ruleId: string; kind: string; problemId: string }>;
}

export interface Alerter extends Component {
  /** Evaluates every enabled rule once at `nowMs` (default: the clock). Calls never overlap. */
  evaluateOnce(nowMs?: number): Promise<EvaluationReport>;
  /** Resolves once every queued notification was delivered or gave up, and recorded. */
  idle(): Promise<void>;
  /** Notifications queued or being delivered. */
  pendingNotifications(): number;
}

/**
 * Evaluates alert rules every `intervalMs`, keeps each rule's state in the store, and notifies
 * on firing, on a due reminder and on recovery, never on every evaluation. Deliveries run in a
 * background queue; their outcome is written into the history event afterwards.
 */
export function createAlerter(options: AlerterOptions): Alerter {
  const log = options.log.child({ component: 'alerter' });
  const now = options.now ?? Date.now;
  const store = options.store;
  const repo = createAlertRepository(store, (doc, problems) => log.warn({ kind: doc.kind, project: doc.project, id: doc.id, problems }, 'stored alert document does not parse; skipped'));
  const reviews = createReviewRepository(store, (doc, problems) => log.warn({ kind: doc.kind, project: doc.project, id: doc.id, problems }, 'stored review does not parse; skipped'));
  const notifier = createNotificationQueue({
    log,
    ...(options.outbound ? { outbound: options.outbound } : {}),
    ...(options.delivery ? { policy: options.delivery } : {}),
    ...(options.maxQueuedNotifications !== undefined ? { maxQueued: options.maxQueuedNotifications } : {}),
    ...(options.unitLink ? { unitLink: options.unitLink } : {}),
    ...(options.sendMail ? { sendMail: options.sendMail } : {}),
    ...(options.shutdownGraceMs !== undefined ? { shutdownGraceMs: options.shutdownGraceMs } : {}),
    now,
  });
  /** Each rule's state; the store holds the durable copy, loaded once at start. */
  let states: Map<string, AlertState> | null = null;
  let current: Promise<EvaluationReport> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let lastEventMs = 0;
  let stopping: Promise<void> | null = null;

  async function loadStates(): Promise<Map<string, AlertState>> {
    if (!states) {
      states = await repo.listStates();
      const firing = [...states.values()].filter((s) => s.state === 'firing').length;
      log.info({ rules: states.size, firing }, 'alert states loaded');
    }
    return states;
  }

  async function aggregatesOf(rule: AlertRule, nowMs: number): Promise<RuleAggregates> {
    const q = ruleQueries(rule, nowMs);
    if (q.kind === 'units') return { kind: 'units', seen: (await store.listUnits(q.query)).length };
    if (q.kind === 'single') return { kind: 'single', rows: await store.aggregateScores(q.query) };
    if (q.kind === 'metrics') return { kind: 'metrics', rows: await store.unitMetrics(q.query) };
    if (q.kind === 'metric_pair') {
      const [baseline, candidate] = await Promise.all([store.unitMetrics(q.baseline), store.unitMetrics(q.candidate)]);
      return { kind: 'metric_pair', baseline, candidate };
    }
    if (q.kind === 'reviews') {
      if (rule.kind !== 'agreement') throw new TypeError(`a ${rule.kind} rule reads no reviews`);
      return { kind: 'reviews', reviews: agreementReviews(rule, await reviews.listReviews({ project: rule.project, check: rule.check }), q.fromMs) };
    }
    const [baseline, candidate] = await Promise.all([store.aggregateScores(q.baseline), store.aggregateScores(q.candidate)]);
    return { kind: 'pair', baseline, candidate };
  }

  async function failingUnits(rule: AlertRule, nowMs: number): Promise<string[]> {
    const query = failingUnitsQuery(rule, nowMs);
    if (!query) return [];
    try {
      const scores = await store.queryScores(query);
      return [...new Set(scores.map((s) => s.unit_id))].slice(0, 20);
    } catch (err) {
      // The notification matters more than its examples.
      log.warn({ err, ruleId: rule.id }, 'listing failing units failed; notifying without them');
      return [];
    }
  }

  /** Writes the history event, then queues its deliveries. Throws if the event cannot be written (the transition is then retried next evaluation). */
  async function notify(rule: AlertRule, ev: RuleEvaluation, transition: Transition, nowMs: number): Promise<void> {
    const state = transition === 'resolve' ? 'resolved' : 'firing';
    const units = transition === 'resolve' ? [] : ev.observation.kind === 'agreement' ? ev.observation.units : await failingUnits(rule, nowMs);
    const payload = buildPayload(rule, ev.observation, { state, firedAtMs: ev.state.fired_at_ms ?? nowMs, units, ...(state === 'firing' && ev.state.level ? { level: ev.state.level } : {}) });
    log.info({ ruleId: rule.id, rule: rule.name, transition, summary: payload.summary }, 'alert notification');
    // One key per episode: its firing, reminders and resolution name the same PagerDuty incident.
    await send(rule, payload, { state: transition === 'remind' ? 'reminder' : state, dedupKey: `tracecheck:${rule.project}:${rule.id}:${ev.state.fired_at_ms ?? nowMs}`, nowMs });
  }

  /**
   * Writes a notification into the history (`pending` while it has targets), then queues its
   * deliveries, whose outcome rewrites it. `id` names an event whose id is known in advance (a
   * problem's state change), else a new one.
   */
  async function send(rule: AlertRule, payload: AlertPayload, opts: { state: AlertEvent['state']; dedupKey: string; nowMs: number; id?: string; createdAtMs?: number }): Promise<void> {
    // History is ordered by write time: give every event its own millisecond.
    const writtenAtMs = Math.max(opts.nowMs, lastEventMs + 1);
    lastEventMs = writtenAtMs;
    const event: AlertEvent = {
      id: opts.id ?? newAlertEventId(writtenAtMs),
      project: rule.project,
      rule_id: rule.id,
      rule_name: rule.name,
      state: opts.state,
      payload,
      delivery_status: rule.notify.length > 0 ? 'pending' : 'none',
      deliveries: [],
      created_at_ms: opts.createdAtMs ?? opts.nowMs,
    };
    await repo.putEvent(event, writtenAtMs);
    if (rule.notify.length === 0) return;
    const record = (deliveries: Delivery[]): Promise<void> => {
      for (const d of deliveries) options.metrics?.alertDeliveries.inc({ type: d.type, outcome: d.outcome });
      return repo.putEvent({ ...event, delivery_status: 'done', deliveries }, Math.max(now(), writtenAtMs + 1));
    };
    const queued = notifier.enqueue({ targets: rule.notify, payload, dedupKey: opts.dedupKey, onDone: record });
    if (!queued) {
      log.error({ ruleId: rule.id }, 'notification queue full or stopped; notification not delivered');
      const failed = rule.notify.map((t): Delivery => ({ type: t.type, url: targetAddress(t), outcome: 'failed', attempts: 0, error: 'notification queue full or alerter stopping', at_ms: now() }));
      void record(failed).catch((err: unknown) => log.error({ err, ruleId: rule.id }, 'recording delivery outcome failed'));
    }
  }

  const problemAlerts = createProblemAlerts({ store, repo, log, send: (rule, payload, o) => send(rule, payload, { state: 'firing', ...o }) });

  // What was last written per rule. A state whose decisive fields did not change is written again
  // only now and then (it carries the last value and evaluation time for the API): on ClickHouse
  // every write is a new part, and 100 rules every minute would be 100 parts a minute for nothing.
  const persisted = new Map<string, { state: AlertState; atMs: number }>();
  const refreshMs = Math.max(1_000, 5 * options.intervalMs);
  function mustPersist(ruleId: string, state: AlertState, nowMs: number): boolean {
    const last = persisted.get(ruleId);
    if (!last || nowMs - last.atMs >= refreshMs) return true;
    const a = last.state;
    return a.state !== state.state || a.consecutive_bad !== state.consecutive_bad || a.consecutive_good !== state.consecutive_good || a.fired_at_ms !== state.fired_at_ms || a.last_notified_at_ms !== state.last_notified_at_ms || a.last_error !== state.last_error;
  }

  async function evaluateRuleOnce(stored: WindowRule, all: Map<string, AlertState>, nowMs: number, report: EvaluationReport): Promise<void> {
    const rule = ruleWithinLimits(stored, options.limits ?? DEFAULT_ALERT_LIMITS);
    const prev = all.get(rule.id) ?? initialAlertState(rule.id);
    try {
      const ev = evaluateRule(rule, prev, await aggregatesOf(rule, nowMs), nowMs);
      if (ev.transition) {
        await notify(rule, ev, ev.transition, nowMs);
        report.notifications.push({ ruleId: rule.id, transition: ev.transition });
      }
      all.set(rule.id, ev.state);
      report.evaluated++;
      if (!mustPersist(rule.id, ev.state, nowMs)) return;
      try {
        await repo.putState(rule.project, ev.state, nowMs);
        persisted.set(rule.id, { state: ev.state, atMs: nowMs });
      } catch (err) {
        // The state in memory is current, so this process does not notify twice; the store's copy
        // catches up at the next evaluation.
        log.warn({ err, ruleId: rule.id }, 'persisting alert state failed');
      }
    } catch (err) {
      report.failed++;
      const failed = { ...prev, last_error: errorMessage(err) };
      all.set(rule.id, failed);
      log.error({ err, ruleId: rule.id, rule: rule.name }, 'rule evaluation failed');
      // Best effort, so that the API shows why; the store may well be what failed.
      await repo.putState(rule.project, failed, nowMs).catch(() => undefined);
    }
  }

  async function run(nowMs: number): Promise<EvaluationReport> {
    const all = await loadStates();
    const rules = await repo.listRules();
    const enabled = rules.filter((r) => r.enabled);
    // Deleted rules leave no state behind (the API deletes the stored copy).
    const ids = new Set(rules.map((r) => r.id));
    for (const id of [...all.keys()]) if (!ids.has(id)) all.delete(id);
    const report: EvaluationReport = { atMs: nowMs, rules: enabled.length, evaluated: 0, failed: 0, notifications: [], problemNotifications: [] };
    const windowed = enabled.filter((r): r is WindowRule => r.kind !== 'problem');
    await forEachLimited(windowed, options.ruleConcurrency ?? 8, (rule) => evaluateRuleOnce(rule, all, nowMs, report));
    const problemRules = enabled.filter((r): r is ProblemRule => r.kind === 'problem').map((r) => ruleWithinLimits(r, options.limits ?? DEFAULT_ALERT_LIMITS));
    await problemAlerts.deliver(problemRules, nowMs, report);
    log.debug({ ...report }, 'rules evaluated');
    return report;
  }

  async function evaluateOnce(nowMs?: number): Promise<EvaluationReport> {
    while (current) await current.catch(() => undefined);
    const evaluation = run(nowMs ?? now());
    current = evaluation;
    try {
      return await evaluation;
    } finally {
      current = null;
    }
  }

  function tick(): void {
    if (current) {
      log.warn({ intervalMs: options.intervalMs }, 'previous evaluation still running; skipping this one');
      return;
    }
    evaluateOnce().catch((err: unknown) => log.error({ err }, 'evaluation failed'));
  }

  return {
    name: 'alerter',
    async start() {
      await loadStates();
      timer = setInterval(tick, options.intervalMs);
      tick();
      log.info({ intervalMs: options.intervalMs }, 'alerter started');
    },
    shutdown() {
      stopping ??= (async () => {
        if (timer) clearInterval(timer);
        await current?.catch(() => undefined);
        await notifier.shutdown();
      })();
      return stopping;
    },
    evaluateOnce,
    idle: () => notifier.idle(),
    pendingNotifications: () => notifier.pending(),
  };
}
