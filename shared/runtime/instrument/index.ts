export { createAgentTracer, TRACECHECK_ATTRIBUTES } from './agent-tracer.ts';
export type { AgentRunHandle, AgentTracer, AgentTracerOptions, ModelCall, ModelCallHandle, TokenUsage, ToolCall } from './agent-tracer.ts';
export { parseArguments, splitSystemInstructions, toGenAiFinishReason, toGenAiMessage, toGenAiOutputMessage, toGenAiToolDefinition } from './genai-messages.ts';
export type { GenAiMessage, GenAiOutputMessage, GenAiPart, GenAiToolDefinition, OpenAiMessage, OpenAiTool } from './genai-messages.ts';
