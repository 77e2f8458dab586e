import { randomUUID } from 'node:crypto';
import { context, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createAgentTracer } from '../../shared/runtime/instrument/index.ts';

// Agent runs sent through the real OTel SDK and OTLP/protobuf exporter, without a model: each run
// books a table with one tool call, or, when it loops, repeats the same call four times with the same
// result (which loop_guard fails). Returns each run's trace id, in order.

export interface RunSpec {
  agent: string;
  version: string;
  loops: boolean;
  /** The user's question (default: a table booking); the dashboard tests send markup in it. */
  question?: string;
  /** The model and the tool the run names (default `booking-model`, `check_availability`); the dashboard tests send markup in them. */
  model?: string;
  tool?: string;
}

export interface SendRunsOptions {
  collectorUrl: string;
  /** E.g. `{ Authorization: 'Bearer <ingest key>' }`. */
  headers?: Record<string, string>;
  service?: string;
}

/** `n` runs of which the first `failing` loop, spread evenly (run i loops when ⌊i·f/n⌋ changes). */
export function runsOf(agent: string, version: string, n: number, failing: number): RunSpec[] {
  return Array.from({ length: n }, (_, i) => ({ agent, version, loops: Math.floor(((i + 1) * failing) / n) !== Math.floor((i * failing) / n) }));
}

/**
 * Called with each export batch and whether the collector acknowledged it (after the exporter's own
 * retries). With it, a failed export is reported here instead of failing the whole call.
 */
export type OnExport = (spans: readonly ReadableSpan[], acknowledged: boolean) => void;

/** A provider exporting through the real OTLP/protobuf exporter; `fn` records, then everything is flushed. */
export async function withTracer<T>(options: SendRunsOptions & { onExport?: OnExport }, fn: (tracer: Tracer, flush: () => Promise<void>) => Promise<T>): Promise<T> {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const failures: unknown[] = [];
  const exporter = new OTLPTraceExporter({ url: `${options.collectorUrl}/v1/traces`, headers: options.headers ?? {}, timeoutMillis: 30_000 });
  const recording: SpanExporter = {
    export(spans: ReadableSpan[], done: (r: ExportResult) => void) {
      exporter.export(spans, (r) => {
        if (options.onExport) options.onExport(spans, r.code === ExportResultCode.SUCCESS);
        else if (r.code !== ExportResultCode.SUCCESS) failures.push(r.error ?? new Error('export failed'));
        done(r);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
  };
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.service ?? 'booking-api', 'deployment.environment.name': 'prod' }),
    spanProcessors: [new BatchSpanProcessor(recording, { maxQueueSize: 100_000, maxExportBatchSize: 1_000, scheduledDelayMillis: 200 })],
  });
  try {
    const out = await fn(provider.getTracer('tracecheck-test-agent'), () => provider.forceFlush());
    await provider.forceFlush();
    if (failures.length > 0) throw new Error(`export failed: ${String(failures[0])}`);
    return out;
  } finally {
    await provider.shutdown();
  }
}

export interface TurnSpec {
  user: string;
  assistant: string;
  /** Attributes of the agent run's span (e.g. `tracecheck.session.end`, `tracecheck.simulation.id`). */
  attributes?: Record<string, string | boolean>;
}

/**
 * One trace per turn of a conversation, as chat backends export it: each turn's model call is sent
 * the whole history before it (so every trace re-sends the dialog so far). `history` is what came
 * before these turns. Returns each turn's trace id.
 */
export async function sendTurns(conversationId: string | undefined, turns: readonly TurnSpec[], options: SendRunsOptions & { agent?: string; history?: ReadonlyArray<{ role: string; content: string }> }): Promise<string[]> {
  return withTracer(options, async (tracer) => {
    const agent = createAgentTracer({ tracer, agentName: options.agent ?? 'chat-agent', agentVersion: 'v1', ...(conversationId !== undefined ? { conversationId } : {}) });
    const messages: Array<{ role: string; content: string }> = [...(options.history ?? [])];
    const ids: string[] = [];
    for (const turn of turns) {
      messages.push({ role: 'user', content: turn.user });
      await agent.runAgent(options.agent ?? 'chat-agent', turn.user, async (run) => {
        ids.push(run.span.spanContext().traceId);
        for (const [k, v] of Object.entries(turn.attributes ?? {})) run.span.setAttribute(k, v);
        await agent.recordModelCall({ model: 'chat-model', inputMessages: [...messages] as never }, (h) => {
          h.setOutput({ messages: [{ role: 'assistant', content: turn.assistant }], finishReasons: ['stop'] });
        });
        return turn.assistant;
      });
      messages.push({ role: 'assistant', content: turn.assistant });
    }
    return ids;
  });
}

export async function sendRuns(runs: readonly RunSpec[], options: SendRunsOptions): Promise<string[]> {
  return withTracer(options, async (tracer) => {
    const traceIds: string[] = [];
    for (const run of runs) await recordRun(tracer, run, traceIds);
    return traceIds;
  });
}

/**
 * Runs of `next(i)` one after another, `paceMs` apart, until `next` returns null, each flushed as
 * it ends. Every export batch and its outcome goes to `onExport` (failures do not throw): for tests
 * that count what the collector acknowledged while it is being killed.
 *
 * One export per run: a run split over two exports, whose second export (retried across a restart)
 * reaches an assembler that no longer remembers publishing the first part, is a new revision with
 * the later spans only (docs/guarantees.md, "Late spans"); these tests count what a crash loses of
 * whole exports, which nothing may.
 */
export async function streamRuns(next: (i: number) => RunSpec | null, options: SendRunsOptions & { onExport: OnExport; paceMs: number }): Promise<string[]> {
  return withTracer(options, async (tracer, flush) => {
    const traceIds: string[] = [];
    for (let i = 0, run = next(0); run !== null; run = next(++i)) {
      await recordRun(tracer, run, traceIds);
      // A failed export is reported to onExport; the flush that waited for it rejects as well.
      await flush().catch(() => undefined);
      await new Promise((r) => setTimeout(r, options.paceMs));
    }
    return traceIds;
  });
}

async function recordRun(tracer: Tracer, run: RunSpec, traceIds: string[]): Promise<void> {
  const agent = createAgentTracer({ tracer, agentName: run.agent, agentVersion: run.version, conversationId: randomUUID() });
  const question = run.question ?? 'Book a table for two on December 1st.';
  const model = run.model ?? 'booking-model';
  const tool = run.tool ?? 'check_availability';
  await agent.runAgent(run.agent, question, async () => {
    traceIds.push(trace.getActiveSpan()!.spanContext().traceId);
    const messages: Array<Record<string, unknown>> = [{ role: 'user', content: question }];
    for (let i = 0; i < (run.loops ? 4 : 1); i++) {
      const id = `call_${i}`;
      const call = { id, type: 'function' as const, function: { name: tool, arguments: '{"date":"2026-12-01","people":2}' } };
      await agent.recordModelCall({ model: model, inputMessages: messages as never }, (h) => {
        h.setOutput({ messages: [{ role: 'assistant', content: null, tool_calls: [call] }], finishReasons: ['tool_calls'] });
      });
      messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      const result = await agent.recordToolCall({ name: tool, callId: id, arguments: call.function.arguments }, () => ({ available: run.loops ? false : true }));
      messages.push({ role: 'tool', tool_call_id: id, content: JSON.stringify(result) });
    }
    const answer = run.loops ? 'I could not find a table.' : 'Booked: a table for two on December 1st.';
    await agent.recordModelCall({ model: model, inputMessages: messages as never }, (h) => {
      h.setOutput({ messages: [{ role: 'assistant', content: answer }], finishReasons: ['stop'] });
    });
    return answer;
  });
}
