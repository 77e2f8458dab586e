// OTLP/JSON export bodies of one very large trace, as a hostile or runaway agent sends them: every
// span a model call with usage and a one-turn dialog (about 600 bytes of JSON each), shaped as a
// parent chain (span i under span i − 1) or wide (every span under the root). Span 0 is the root.

export type TraceShape = 'chain' | 'wide';

const START_NS = 1_700_000_000_000_000_000n;

const spanIdOf = (i: number): string => (i + 1).toString(16).padStart(16, '0');

function attr(key: string, value: string | number) {
  return { key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } };
}

function otlpSpan(traceId: string, i: number, shape: TraceShape) {
  const parent = i === 0 ? undefined : shape === 'chain' ? i - 1 : 0;
  const start = START_NS + BigInt(i) * 1_000_000n;
  return {
    traceId,
    spanId: spanIdOf(i),
    ...(parent === undefined ? {} : { parentSpanId: spanIdOf(parent) }),
    name: i === 0 ? 'invoke_agent runaway' : 'chat gpt-4o',
    kind: i === 0 ? 1 : 3,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 500_000n),
    attributes:
      i === 0
        ? [attr('gen_ai.operation.name', 'invoke_agent'), attr('gen_ai.agent.name', 'runaway-agent')]
        : [
            attr('gen_ai.operation.name', 'chat'),
            attr('gen_ai.request.model', 'gpt-4o'),
            attr('gen_ai.usage.input_tokens', 10),
            attr('gen_ai.usage.output_tokens', 5),
            attr('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `question ${i}` }] }])),
            attr('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `answer ${i}` }], finish_reason: 'stop' }])),
          ],
    status: {},
  };
}

/** One export request (OTLP/JSON text) holding spans `from` (inclusive) to `to` (exclusive). */
export function largeTraceExport(traceId: string, shape: TraceShape, from: number, to: number): string {
  const spans = [];
  for (let i = from; i < to; i++) spans.push(otlpSpan(traceId, i, shape));
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: [attr('service.name', 'runaway-service')] }, scopeSpans: [{ scope: { name: 'hostile' }, spans }] }],
  });
}

/**
 * The export requests of a trace of `total` spans, `perRequest` spans each, deepest first and the
 * root in the last one (a root span ends last, so an SDK exports it last).
 */
export function largeTraceRequests(traceId: string, shape: TraceShape, total: number, perRequest: number): string[] {
  const bodies: string[] = [];
  for (let to = total; to > 0; to -= perRequest) bodies.push(largeTraceExport(traceId, shape, Math.max(0, to - perRequest), to));
  return bodies;
}
