import { setTimeout as sleep } from 'node:timers/promises';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createAgentTracer } from '../../shared/runtime/instrument/index.ts';

// A steady stream of agent runs through the real OTel SDK and OTLP/protobuf exporter (its own
// retries on 429/503 with Retry-After included), for the fault tests: each run is 4 spans (the
// agent run, a model call asking for a tool, the tool call, the final model call), without a
// conversation id (no session units). The runs of a tick overlap, as the runs of a busy agent do,
// so their spans interleave on the partitions. What the collector acknowledged is recorded per span.

export const SPANS_PER_RUN = 4;

export interface PacedRunsOptions {
  collectorUrl: string;
  runs: number;
  /** Runs started per tick, and the pause between ticks: the stream's rate. */
  runsPerTick: number;
  tickMs: number;
  /** The exporter's whole budget per export, retries included (OTEL_EXPORTER_OTLP_TIMEOUT). */
  exportTimeoutMs: number;
  /** Called after each tick with the number of runs started so far (a test kills a service at some point). */
  onProgress?: (started: number) => Promise<void> | void;
}

export interface PacedRunsResult {
  traceIds: string[];
  /** Exports the collector answered with success (after the exporter's retries), and those that failed for good. */
  exportsOk: number;
  exportsFailed: number;
  /** Spans in exports answered with success. */
  spansAcknowledged: number;
  /** Traces every span of which was acknowledged. */
  tracesAcknowledged: Set<string>;
  failures: string[];
}

export async function sendPacedRuns(options: PacedRunsOptions): Promise<PacedRunsResult> {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const ackedSpans = new Map<string, number>();
  const result: PacedRunsResult = { traceIds: [], exportsOk: 0, exportsFailed: 0, spansAcknowledged: 0, tracesAcknowledged: new Set(), failures: [] };
  const exporter = new OTLPTraceExporter({ url: `${options.collectorUrl}/v1/traces`, timeoutMillis: options.exportTimeoutMs });
  const recording: SpanExporter = {
    export(spans: ReadableSpan[], done: (r: ExportResult) => void) {
      exporter.export(spans, (r) => {
        if (r.code === ExportResultCode.SUCCESS) {
          result.exportsOk += 1;
          result.spansAcknowledged += spans.length;
          for (const s of spans) {
            const id = s.spanContext().traceId;
            const n = (ackedSpans.get(id) ?? 0) + 1;
            ackedSpans.set(id, n);
            if (n === SPANS_PER_RUN) result.tracesAcknowledged.add(id);
          }
        } else {
          result.exportsFailed += 1;
          result.failures.push(String(r.error ?? 'export failed'));
        }
        done(r);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
  };
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'fault-agent', 'deployment.environment.name': 'test' }),
    spanProcessors: [new BatchSpanProcessor(recording, { maxQueueSize: 200_000, maxExportBatchSize: 400, scheduledDelayMillis: 100, exportTimeoutMillis: options.exportTimeoutMs })],
  });
  const agent = createAgentTracer({ tracer: provider.getTracer('tracecheck-fault-test'), agentName: 'fault-agent', agentVersion: 'v1' });
  try {
    let started = 0;
    while (started < options.runs) {
      const n = Math.min(options.runsPerTick, options.runs - started);
      await Promise.all(Array.from({ length: n }, () => oneRun(agent, result.traceIds)));
      started += n;
      await options.onProgress?.(started);
      if (started < options.runs) await sleep(options.tickMs);
    }
    // A failed export rejects the flush; it is already counted in exportsFailed.
    await provider.forceFlush().catch((err: unknown) => result.failures.push(`flush: ${String(err)}`));
  } finally {
    await provider.shutdown();
  }
  return result;
}

async function oneRun(agent: ReturnType<typeof createAgentTracer>, traceIds: string[]): Promise<void> {
  const question = 'Book a table for two on December 1st.';
  await agent.runAgent('fault-agent', question, async () => {
    traceIds.push(trace.getActiveSpan()!.spanContext().traceId);
    const call = { id: 'call_0', type: 'function' as const, function: { name: 'check_availability', arguments: '{"date":"2026-12-01","people":2}' } };
    const messages: Array<Record<string, unknown>> = [{ role: 'user', content: question }];
    await agent.recordModelCall({ model: 'booking-model', inputMessages: messages as never }, (h) => {
      h.setOutput({ messages: [{ role: 'assistant', content: null, tool_calls: [call] }], finishReasons: ['tool_calls'] });
    });
    messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    await sleep(Math.floor(Math.random() * 20));
    const booked = await agent.recordToolCall({ name: 'check_availability', callId: call.id, arguments: call.function.arguments }, () => ({ available: true }));
    messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(booked) });
    await sleep(Math.floor(Math.random() * 20));
    await agent.recordModelCall({ model: 'booking-model', inputMessages: messages as never }, (h) => {
      h.setOutput({ messages: [{ role: 'assistant', content: 'Booked: a table for two on December 1st.' }], finishReasons: ['stop'] });
    });
    return 'booked';
  });
}
