import { createHash } from 'node:crypto';
import type { Bus, ConsumerLag, Producer } from '../../../../shared/adapters/bus/index.ts';
import type { Store } from '../../../../shared/adapters/store/index.ts';
import { EVALUATION_EVENT, SpanEnvelopeSchema, parseRecord, type Score, type SpanEnvelope, type Unit } from '../../../../shared/contracts/schemas/index.ts';
import { createRecordStage } from '../../../../shared/kit/stage/index.ts';
import type { Component } from '../../../../shared/runtime/lifecycle/index.ts';
import type { Logger } from '../../../../shared/runtime/logging/index.ts';
import { evaluationsIn, externalScore, type ExternalEvaluation } from './read-evaluations.ts';

/** Evaluations whose unit is not stored yet wait here (docs), looked for again on every sweep. */
const PENDING_EVALUATION_KIND = 'pending_evaluation';

export interface EvaluationIntakeConfig {
  spansTopic: string;
  scoresTopic: string;
  groupId: string;
  /** How often waiting evaluations are matched again. Default 5 s. */
  sweepMs?: number;
  /** An evaluation whose unit never comes is given up this long after it arrived. Default 1 h. */
  maxWaitMs?: number;
}

export interface EvaluationIntakeDeps {
  bus: Bus;
  store: Store;
  log: Logger;
  onLag?: (lag: ConsumerLag) => void;
  nowMs?: () => number;
}

/** A record that cannot hold an evaluation is passed over before it is checked (most of the topic). */
function mayHold(value: string, parsed: unknown): boolean {
  if (parsed === undefined) return value.includes(EVALUATION_EVENT);
  const e = parsed as SpanEnvelope;
  return e.kind === 'log' ? e.event_name === EVALUATION_EVENT : e.events.some((ev) => ev.name === EVALUATION_EVENT);
}

function pendingId(e: ExternalEvaluation): string {
  return createHash('sha256').update(JSON.stringify([e.trace_id, e.span_id ?? '', e.name, e.source])).digest('hex').slice(0, 32);
}

/**
 * Reads the spans topic for evaluation events (its own consumer group) and writes each as an
 * external score of the unit of its trace. An evaluation of a unit not stored yet (it came before
 * its trace was assembled and scored) is kept in the store and matched again on every sweep, so
 * neither order loses it; the assembler never holds an evaluation record, so one that comes after
 * the unit does not re-open it.
 */
export function createEvaluationIntake(config: EvaluationIntakeConfig, deps: EvaluationIntakeDeps): Component {
  const log = deps.log.child({ component: 'evaluation-intake' });
  const now = deps.nowMs ?? Date.now;
  const producer: Producer = deps.bus.createProducer();
  const sweepMs = config.sweepMs ?? 5_000;
  const maxWaitMs = config.maxWaitMs ?? 60 * 60_000;
  let timer: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> = Promise.resolve();

  /** The unit of a trace: its id, else `<trace id>@<project>` (a trace id another project holds). */
  async function unitOf(e: ExternalEvaluation): Promise<Unit | null> {
    const found = await deps.store.getUnit(e.trace_id, e.project);
    if (found || e.project === 'default') return found;
    return deps.store.getUnit(`${e.trace_id}@${encodeURIComponent(e.project)}`, e.project);
  }

  async function write(scores: Score[]): Promise<void> {
    if (scores.length === 0) return;
    await deps.store.writeScores(scores);
    await producer.send(config.scoresTopic, scores.map((s) => ({ key: s.unit_id, value: JSON.stringify(s) })));
  }

  async function take(evaluations: ExternalEvaluation[]): Promise<void> {
    const scores: Score[] = [];
    for (const e of evaluations) {
      const unit = await unitOf(e);
      if (unit) scores.push(externalScore(unit, e, now()));
      else await deps.store.putDoc({ kind: PENDING_EVALUATION_KIND, project: e.project, id: pendingId(e), body: { evaluation: e, arrived_at_ms: now() }, updated_at_ms: now() });
    }
    await write(scores);
  }

  async function sweep(): Promise<void> {
    const docs = await deps.store.listDocs({ kind: PENDING_EVALUATION_KIND, limit: 1000 });
    for (const doc of docs) {
      const body = doc.body as { evaluation: ExternalEvaluation; arrived_at_ms: number };
      const unit = await unitOf(body.evaluation);
      if (unit) await write([externalScore(unit, body.evaluation, now())]);
      else if (now() - body.arrived_at_ms < maxWaitMs) continue;
      else log.warn({ traceId: body.evaluation.trace_id, name: body.evaluation.name }, 'evaluation given up: its trace never became a unit');
      await deps.store.deleteDoc(PENDING_EVALUATION_KIND, doc.project, doc.id);
    }
  }

  const schedule = (): void => {
    timer = setTimeout(() => {
      sweeping = sweep()
        .catch((err: unknown) => log.warn({ err }, 'matching waiting evaluations failed; tried again on the next sweep'))
        .finally(() => {
          if (timer !== null) schedule();
        });
    }, sweepMs);
  };

  return createRecordStage<ExternalEvaluation[]>(
    { name: 'evaluation-intake', in: config.spansTopic, out: [config.scoresTopic], groupId: config.groupId },
    {
      bus: deps.bus,
      log: deps.log,
      producer,
      parse: (value, parsed) => (mayHold(value, parsed) ? evaluationsIn(parseRecord(SpanEnvelopeSchema, value, 'a span envelope v1', parsed)) : []),
      skip: (evaluations) => evaluations.length === 0,
      keyOf: (evaluations) => evaluations[0].trace_id,
      run: (evaluations) => take(evaluations),
      started: schedule,
      stopping: async () => {
        if (timer) clearTimeout(timer);
        timer = null;
        await sweeping;
      },
      ...(deps.onLag ? { onLag: deps.onLag } : {}),
    },
  );
}
