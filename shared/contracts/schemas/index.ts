export { ChatMessageSchema,  ToolDefinitionSchema } from './message.ts';
export type { AudioPart, ChatMessage, ToolCall, ToolDefinition } from './message.ts';
export {
  SpanEnvelopeSchema,
  
  
  
  GenAiFamilySchema,
  EVALUATION_EVENT,
} from './span-envelope.v1.ts';
export type { SpanEnvelope, SpanRecord, LogRecordEnvelope, SpanGenAi, TokenUsage, GenAiFamily, ModalityTokens, McpFields, ContentRefs } from './span-envelope.v1.ts';
export { UnitSchema,   parseUnit, isCheckedUnit } from './unit.v1.ts';
export type { Unit, UnitToolCall } from './unit.v1.ts';
export { ScoreSchema,   } from './score.v1.ts';
export type { Score, ScoreMethod,  } from './score.v1.ts';
export { canonicalJson, canonicalJsonText } from './canonical-json.ts';
export { parseRecord } from './parse-record.ts';
;
export type { MemoryStep, ModelStep, ModelTotals,  ToolStep, UnitStep } from './unit-steps.ts';
;
export type { ReceivedScope, UnitReceived } from './unit-received.ts';
export { isEntrySpan } from './entry-span.ts';
