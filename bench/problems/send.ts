// Records the fleet's planned runs through the real OTel SDK and OTLP/protobuf exporter (the tests'
// withTracer): one trace per run, GenAI spans as the instrumentation library writes them. A run's
// spans start and end on a clock of its own that moves 1 ms at each start or end, as real model and
// tool calls take at least that: the SDK stamps a span from Date.now() (whole milliseconds) plus a
// high-resolution offset, so spans started within one millisecond may come out of order, and a run's
// steps with them.

function steppedTracer(tracer: Tracer): Tracer {
  let at = Date.now();
  const tick = (): number => (at += 1);
  return {
    startSpan(name, options, ctx) {
      const span = tracer.startSpan(name, { ...options, startTime: options?.startTime ?? tick() }, ctx);
      const end = span.end.bind(span);
      span.end = (time) => end(time ?? tick());
      return span;
    },
    startActiveSpan: tracer.startActiveSpan.bind(tracer),
  };
}
import { SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { createAgentTracer, type OpenAiMessage } from '../../shared/runtime/instrument/index.ts';
import { withTracer, type SendRunsOptions } from '../../test/helpers/agent-runs.ts';
import type { PlannedRun } from './fleet.ts';

async function recordRun(sdkTracer: Tracer, run: PlannedRun): Promise<string> {
  const tracer = steppedTracer(sdkTracer);
  const conversationId = `conv-${run.index}`;
  const agent = createAgentTracer({ tracer, agentName: 'shop-assistant', agentVersion: run.version, conversationId });
  const billing = createAgentTracer({ tracer, agentName: 'billing-agent', agentVersion: run.version, conversationId });
  let traceId = '';
  await agent.runAgent('shop-assistant', run.question, async (h) => {
    traceId = h.span.spanContext().traceId;
    const messages: OpenAiMessage[] = [{ role: 'user', content: run.question }];
    for (const [k, step] of run.tools.entries()) {
      const call = { id: `call_${run.index}_${k}`, type: 'function' as const, function: { name: step.tool, arguments: JSON.stringify(step.args) } };
      await agent.recordModelCall({ model: 'shop-model', inputMessages: messages }, (m) => {
        m.setOutput({ messages: [{ role: 'assistant', content: null, tool_calls: [call] }], finishReasons: ['tool_calls'] });
      });
      messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      let content: string;
      try {
        const result = await agent.recordToolCall({ name: step.tool, callId: call.id, arguments: call.function.arguments }, () => {
            if (step.error !== undefined) throw new Error(step.error);
          return step.result ?? { ok: true };
        });
        content = JSON.stringify(result);
      } catch {
        content = `Error: ${step.error}`;
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
    if (run.handoff) {
      await billing.runAgent('billing-agent', 'Process the refund for this order.', async () => {
        await billing.recordModelCall({ model: 'billing-model', inputMessages: [{ role: 'user', content: 'Process the refund for this order.' }] }, (m) => {
            m.setOutput({ messages: [{ role: 'assistant', content: 'Refund queued.' }], finishReasons: ['stop'] });
        });
        return 'Refund queued.';
      });
    }
    if (run.runError !== undefined) {
      h.span.setStatus({ code: SpanStatusCode.ERROR, message: run.runError });
      h.span.setAttribute('error.type', 'HandoffTimeout');
      return undefined;
    }
    await agent.recordModelCall({ model: 'shop-model', inputMessages: messages }, (m) => {
      m.setOutput({ messages: [{ role: 'assistant', content: run.answer }], finishReasons: ['stop'] });
    });
    return run.answer;
  });
  return traceId;
}

/**
 * One export session for the whole phase: `batch()` gives the next runs (null: done), each recorded,
 * the batch exported, and each run handed to `recorded` with its trace id (the unit id), when it
 * ended and when its export was acknowledged.
 */
export async function streamPlanned(batch: () => Promise<PlannedRun[] | null>, recorded: (run: PlannedRun, id: string, endedAt: number, exportedAt: number) => void, options: SendRunsOptions): Promise<void> {
  await withTracer(options, async (tracer, flush) => {
    for (let runs = await batch(); runs !== null; runs = await batch()) {
      // The batch's runs side by side, as a fleet runs them.
      const done = await Promise.all(runs.map(async (run): Promise<[PlannedRun, string, number]> => [run, await recordRun(tracer, run), Date.now()]));
      // Each batch exported before the next: a collector slower than the offered rate slows the
      // sender (the achieved rate is what is reported) instead of piling up exports.
      await flush();
      const at = Date.now();
      for (const [run, id, ended] of done) recorded(run, id, ended, at);
    }
  });
}
