export { createAgentTracer,  } from './agent-tracer.ts';
export type {  AgentTracer,      } from './agent-tracer.ts';
;
export type {     OpenAiMessage,  } from './genai-messages.ts';
