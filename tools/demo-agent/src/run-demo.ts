import { randomUUID } from 'node:crypto';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import OpenAI from 'openai';
import { createAgentTracer } from '../../../shared/runtime/instrument/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { RetriableError } from '../../../shared/runtime/errors/index.ts';
import { runConversation } from './conversation.ts';

const DEMO_AGENT_NAME = 'demo-agent';
const DEMO_AGENT_VERSION = '1.0.0';

/** The three demo conversations: what the user asks, and what the scripted model then does. */
export const DEMO_QUESTIONS = {
  healthy: 'What is the weather in Paris?',
  toolFails: 'Where is my order A-1001?',
  loops: 'Keep checking the weather in Oslo until it is sunny.',
} as const;

export interface RunDemoOptions {
  /** Base URL of an OTLP/HTTP receiver; spans are POSTed to `{collectorUrl}/v1/traces` as protobuf. */
  collectorUrl: string;
  /** OpenAI-compatible base URL, e.g. the model server's `url()` (ends in /v1). */
  modelBaseUrl: string;
  model?: string;
  log?: Logger;
}

export interface DemoResult {
  traceIds: { healthy: string; toolFails: string; loops: string };
  conversationIds: { healthy: string; toolFails: string; loops: string };
}

/** Remembers failed exports: the batch processor would otherwise only log them. */
function recordingExporter(inner: SpanExporter, failures: unknown[]): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      inner.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) failures.push(result.error ?? new Error('span export failed'));
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

// OTLPExporterError carries the HTTP status in `code` and often an empty message.
function describeExportError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  return [err.name, code !== undefined ? `HTTP ${typeof code === 'number' || typeof code === 'string' ? code : JSON.stringify(code)}` : '', err.message].filter((x) => x !== '').join(': ');
}

/**
 * Runs the demo agent: three conversations (healthy, a failing tool, a loop), each one trace with
 * root span `invoke_agent demo-agent`, exported with the real OTLP protobuf exporter. Resolves
 * after the export has finished; rejects when it failed.
 */
export async function runDemo(options: RunDemoOptions): Promise<DemoResult> {
  const log = (options.log ?? createSilentLogger()).child({ component: 'demo-agent' });
  const model = options.model ?? 'mock-accurate';
  // Nesting needs a context manager; an already registered one (e.g. a NodeSDK in this process) is kept.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

  const failures: unknown[] = [];
  const exporter = new OTLPTraceExporter({ url: `${options.collectorUrl.replace(/\/+$/, '')}/v1/traces`, timeoutMillis: 10_000 });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'tracecheck-demo-agent', 'service.version': DEMO_AGENT_VERSION, 'deployment.environment.name': 'demo' }),
    spanProcessors: [new BatchSpanProcessor(recordingExporter(exporter, failures))],
  });
  const tracer = provider.getTracer('tracecheck-demo-agent', DEMO_AGENT_VERSION);
  const client = new OpenAI({ baseURL: options.modelBaseUrl, apiKey: 'demo' });

  const run = async (key: keyof typeof DEMO_QUESTIONS): Promise<{ traceId: string; conversationId: string }> => {
    const conversationId = `demo-${key}-${randomUUID()}`;
    const agent = createAgentTracer({ tracer, agentName: DEMO_AGENT_NAME, agentVersion: DEMO_AGENT_VERSION, conversationId });
    const traceId = await runConversation({ client, agent, agentName: DEMO_AGENT_NAME, model, question: DEMO_QUESTIONS[key] });
    log.info({ scenario: key, traceId, conversationId }, 'demo conversation sent');
    return { traceId, conversationId };
  };

  try {
    const healthy = await run('healthy');
    const toolFails = await run('toolFails');
    const loops = await run('loops');
    await provider.forceFlush().catch((err: unknown) => failures.push(err));
    if (failures.length > 0) {
      throw new RetriableError(`exporting the demo's spans to ${options.collectorUrl} failed: ${describeExportError(failures[0])}`, { cause: failures[0] });
    }
    return {
      traceIds: { healthy: healthy.traceId, toolFails: toolFails.traceId, loops: loops.traceId },
      conversationIds: { healthy: healthy.conversationId, toolFails: toolFails.conversationId, loops: loops.conversationId },
    };
  } finally {
    await provider.shutdown();
  }
}
