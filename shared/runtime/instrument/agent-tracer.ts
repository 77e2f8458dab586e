import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import {
  splitSystemInstructions,
  toGenAiFinishReason,
  toGenAiOutputMessage,
  toGenAiToolDefinition,
  type OpenAiMessage,
  type OpenAiTool,
} from './genai-messages.ts';

/** Attribute names outside the GenAI conventions, in tracecheck's own namespace. */
const TRACECHECK_ATTRIBUTES = {
  simulationId: 'tracecheck.simulation.id',
  scenarioInput: 'tracecheck.scenario.input',
  scenarioResult: 'tracecheck.scenario.result',
} as const;

const INSTRUMENTATION_NAME = 'tracecheck-instrument';

export interface AgentTracerOptions {
  /** Defaults to the global tracer provider's tracer `tracecheck-instrument`. */
  tracer?: Tracer;
  agentName: string;
  agentVersion?: string;
  conversationId?: string;
  simulationId?: string;
}

interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
}

/** One model call. Output and usage may be given up front or set through the handle. */
interface ModelCall {
  model: string;
  /** `gen_ai.provider.name`; default `openai`. */
  provider?: string;
  /** The OpenAI chat messages sent; system messages become `gen_ai.system_instructions`. */
  inputMessages: readonly OpenAiMessage[];
  outputMessages?: readonly OpenAiMessage[];
  tools?: readonly OpenAiTool[];
  usage?: TokenUsage;
  temperature?: number;
}

interface ModelCallHandle {
  span: Span;
  /** Records the answer; called automatically when `fn` returns an OpenAI chat completion. */
  setOutput(output: { messages: readonly OpenAiMessage[]; finishReasons?: ReadonlyArray<string | null>; usage?: TokenUsage; responseModel?: string; responseId?: string }): void;
}

interface ToolCall {
  name: string;
  callId?: string;
  /** The model's arguments: a JSON string as OpenAI sends it, or an object. */
  arguments?: string | Record<string, unknown>;
}

interface AgentRunHandle {
  span: Span;
  /** Overrides the scenario result; by default the value `fn` returns is recorded. */
  setResult(result: unknown): void;
}

/** Records agent runs, model calls and tool calls as OTel GenAI spans (see README.md). */
export interface AgentTracer {
  /** Span `invoke_agent {name}` (INTERNAL); model and tool spans started inside are its children. */
  runAgent<T>(name: string, input: unknown, fn: (run: AgentRunHandle) => Promise<T> | T): Promise<T>;
  /** Span `chat {model}` (CLIENT). When `fn` returns an OpenAI chat completion, its output and usage are recorded. */
  recordModelCall<T>(call: ModelCall, fn: (handle: ModelCallHandle) => Promise<T> | T): Promise<T>;
  /** Span `execute_tool {name}` (INTERNAL); a throw sets status ERROR, an exception event and `error.type`. */
  recordToolCall<T>(call: ToolCall, fn: (span: Span) => Promise<T> | T): Promise<T>;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

function recordError(span: Span, err: unknown): void {
  const error = err instanceof Error ? err : new Error(String(err));
  span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  span.setAttribute('error.type', error.name || 'Error');
}

interface CompletionLike {
  id?: string;
  model?: string;
  choices: Array<{ message: OpenAiMessage; finish_reason?: string | null }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

function isCompletion(value: unknown): value is CompletionLike {
  if (typeof value !== 'object' || value === null) return false;
  const choices = (value as { choices?: unknown }).choices;
  return Array.isArray(choices) && choices.every((c) => typeof c === 'object' && c !== null && 'message' in c);
}

export function createAgentTracer(options: AgentTracerOptions): AgentTracer {
  const tracer = options.tracer ?? trace.getTracer(INSTRUMENTATION_NAME);
  const common: Attributes = { 'gen_ai.agent.name': options.agentName };
  if (options.agentVersion !== undefined) common['gen_ai.agent.version'] = options.agentVersion;
  if (options.conversationId !== undefined) common['gen_ai.conversation.id'] = options.conversationId;
  if (options.simulationId !== undefined) common[TRACECHECK_ATTRIBUTES.simulationId] = options.simulationId;

  // Runs fn inside an active span so nested calls become children, and always ends the span.
  async function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, fn: (span: Span) => Promise<T> | T, onResult?: (span: Span, result: T) => void): Promise<T> {
    const span = tracer.startSpan(name, { kind, attributes: { ...common, ...attributes } }, context.active());
    try {
      const result = await context.with(trace.setSpan(context.active(), span), () => fn(span));
      onResult?.(span, result);
      return result;
    } catch (err) {
      recordError(span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  function setModelOutput(span: Span, output: Parameters<ModelCallHandle['setOutput']>[0]): void {
    const reasons = output.messages.map((_, i) => output.finishReasons?.[i] ?? 'stop');
    const messages = output.messages.map((m, i) => toGenAiOutputMessage(m, reasons[i]));
    span.setAttribute('gen_ai.output.messages', JSON.stringify(messages));
    span.setAttribute('gen_ai.response.finish_reasons', reasons.map((r) => toGenAiFinishReason(r)));
    if (output.responseModel !== undefined) span.setAttribute('gen_ai.response.model', output.responseModel);
    if (output.responseId !== undefined) span.setAttribute('gen_ai.response.id', output.responseId);
    if (output.usage?.inputTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', output.usage.inputTokens);
    if (output.usage?.outputTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', output.usage.outputTokens);
  }

  return {
    runAgent(name, input, fn) {
      let explicitResult: { value: unknown } | null = null;
      return inSpan(
        `invoke_agent ${name}`,
        SpanKind.INTERNAL,
        { 'gen_ai.operation.name': 'invoke_agent', [TRACECHECK_ATTRIBUTES.scenarioInput]: asText(input) },
        (span) =>
          fn({
            span,
            setResult(result) {
              explicitResult = { value: result };
            },
          }),
        (span, result) => {
          const value = explicitResult ? explicitResult.value : result;
          if (value !== undefined) span.setAttribute(TRACECHECK_ATTRIBUTES.scenarioResult, asText(value));
        },
      );
    },

    recordModelCall(call, fn) {
      const { systemInstructions, inputMessages } = splitSystemInstructions(call.inputMessages);
      const attributes: Attributes = {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': call.provider ?? 'openai',
        'gen_ai.request.model': call.model,
        'gen_ai.input.messages': JSON.stringify(inputMessages),
      };
      if (systemInstructions.length > 0) attributes['gen_ai.system_instructions'] = JSON.stringify(systemInstructions);
      if (call.tools && call.tools.length > 0) attributes['gen_ai.tool.definitions'] = JSON.stringify(call.tools.map(toGenAiToolDefinition));
      if (call.temperature !== undefined) attributes['gen_ai.request.temperature'] = call.temperature;
      let outputSet = false;
      return inSpan(
        `chat ${call.model}`,
        SpanKind.CLIENT,
        attributes,
        (span) => {
          if (call.outputMessages) {
            setModelOutput(span, { messages: call.outputMessages, usage: call.usage });
            outputSet = true;
          } else if (call.usage) {
            setModelOutput(span, { messages: [], usage: call.usage });
          }
          return fn({
            span,
            setOutput(output) {
              setModelOutput(span, output);
              outputSet = true;
            },
          });
        },
        (span, result) => {
          if (outputSet || !isCompletion(result)) return;
          setModelOutput(span, {
            messages: result.choices.map((c) => c.message),
            finishReasons: result.choices.map((c) => c.finish_reason ?? null),
            usage: result.usage ? { inputTokens: result.usage.prompt_tokens, outputTokens: result.usage.completion_tokens } : undefined,
            responseModel: result.model,
            responseId: result.id,
          });
        },
      );
    },

    recordToolCall(call, fn) {
      const attributes: Attributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.name,
        'gen_ai.tool.type': 'function',
      };
      if (call.callId !== undefined) attributes['gen_ai.tool.call.id'] = call.callId;
      if (call.arguments !== undefined) attributes['gen_ai.tool.call.arguments'] = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
      return inSpan(`execute_tool ${call.name}`, SpanKind.INTERNAL, attributes, fn, (span, result) => {
        if (result !== undefined) span.setAttribute('gen_ai.tool.call.result', JSON.stringify(result));
      });
    },
  };
}
