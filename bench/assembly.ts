// Assembles large hostile traces: a 30,000-span parent chain and a 130,000-span wide trace, each
// span a model call with usage and a short dialog, every third a tool execution. Prints the time
// of `assembleTrace` alone and of the trace window + assembly with the span cap.
// `node bin/run-ts.mjs bench/assembly.ts [sizes|chain|wide|all]`; with `node --cpu-prof` for a profile.
import type { SpanRecord } from '../shared/contracts/schemas/index.ts';
import { assembleTrace } from '../services/assembler/src/assemble-trace.ts';
import { createTraceWindowHarness } from '../test/helpers/trace-window-harness.ts';

const TRACE = 'c'.repeat(32);
const spanId = (i: number): string => (i + 1).toString(16).padStart(16, '0');

function span(i: number, parent: number | null): SpanRecord {
  const startMs = 1_700_000_000_000 + i;
  const tool = i % 3 === 2;
  return {
    schema_version: 1,
    kind: 'span',
    trace_id: TRACE,
    span_id: spanId(i),
    ...(parent === null ? {} : { parent_span_id: spanId(parent) }),
    name: tool ? 'execute_tool lookup' : 'chat gpt-4o',
    span_kind: 1,
    start_time_unix_nano: `${startMs}000000`,
    end_time_unix_nano: `${startMs + 5}000000`,
    status: { code: 0 },
    service_name: 'bench-agent',
    scope: { name: 'bench' },
    attributes: {},
    resource_attributes: {},
    events: [],
    dropped_attributes_count: 0,
    genai: tool
      ? { operation: 'execute_tool', tool_execution: { name: 'lookup', call_id: `call_${i - 1}`, result: `r${i}` } }
      : {
          operation: 'chat',
          request_model: 'gpt-4o',
          usage: { input_tokens: 10, output_tokens: 5 },
          input_messages: [{ role: 'user', content: `question ${i}` }],
          output_messages: [{ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'lookup', arguments: `{"q":${i}}` } }] }],
        },
    received_at_ms: startMs,
  };
}

const chain = (n: number): SpanRecord[] => Array.from({ length: n }, (_, i) => span(i, i === 0 ? null : i - 1));
const wide = (n: number): SpanRecord[] => Array.from({ length: n }, (_, i) => span(i, i === 0 ? null : 0));

/** Wall time and this process's CPU time (the machine may be shared: CPU time is the figure to compare). */
function time(label: string, run: () => { span_count: number; truncated: boolean }): void {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const took = (): string => {
    const cpu = process.cpuUsage(c0);
    return `${(performance.now() - t0).toFixed(0)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU`;
  };
  try {
    const unit = run();
    console.log(`${label}: ${took()} (span_count ${unit.span_count}, truncated ${unit.truncated})`);
  } catch (err) {
    console.log(`${label}: failed after ${took()}: ${String(err)}`);
  }
}

function viaBuffer(spans: readonly SpanRecord[]) {
  const buffer = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000 });
  spans.forEach((s, i) => buffer.add(s, 0, BigInt(i), 0));
  const [ready] = buffer.takeReady(1, true);
  return assembleTrace(ready, 1);
}

const which = process.argv[2] ?? 'all';
if (which === 'sizes' || which === 'all') {
  // Linear means the time per span stays flat as the trace grows.
  for (const n of [10_000, 30_000, 130_000]) {
    const spans = chain(n);
    time(`${n.toLocaleString('en')}-span chain, assembleTrace (no cap)`, () => assembleTrace({ traceId: TRACE, spans, logs: [] }, 1));
  }
}
if (which === 'chain' || which === 'all') {
  const spans = chain(30_000);
  time('30,000-span chain, assembleTrace', () => assembleTrace({ traceId: TRACE, spans, logs: [] }, 1));
  time('30,000-span chain, buffer + assembleTrace', () => viaBuffer(spans));
}
if (which === 'wide' || which === 'all') {
  const spans = wide(130_000);
  time('130,000-span wide trace, assembleTrace', () => assembleTrace({ traceId: TRACE, spans, logs: [] }, 1));
  time('130,000-span wide trace, buffer + assembleTrace', () => viaBuffer(spans));
}
