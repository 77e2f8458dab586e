export { ChatMessageSchema, ToolCallSchema, ToolDefinitionSchema } from './message.ts';
export type { AudioPart, ChatMessage, ToolCall, ToolDefinition } from './message.ts';
export {
  SpanEnvelopeSchema,
  SpanGenAiSchema,
  SpanEventSchema,
  TokenUsageSchema,
  GenAiFamilySchema,
  EVALUATION_EVENT,
} from './span-envelope.v1.ts';
export type { SpanEnvelope, SpanRecord, LogRecordEnvelope, SpanGenAi, TokenUsage, GenAiFamily, ModalityTokens, McpFields, ContentRefs } from './span-envelope.v1.ts';
export { UnitSchema, UnitToolCallSchema, UnitErrorSchema, parseUnit, isCheckedUnit } from './unit.v1.ts';
export type { Unit, UnitToolCall } from './unit.v1.ts';
export { ScoreSchema, ScoreMethodSchema, ScoreStatusSchema } from './score.v1.ts';
export type { Score, ScoreMethod, ScoreStatus } from './score.v1.ts';
export { canonicalJson, canonicalJsonText } from './canonical-json.ts';
export { parseRecord } from './parse-record.ts';
export { UnitStepSchema, ModelTotalsSchema } from './unit-steps.ts';
export type { MemoryStep, ModelStep, ModelTotals, PlanStep, ToolStep, UnitStep } from './unit-steps.ts';
export { UnitReceivedSchema, ReceivedScopeSchema } from './unit-received.ts';
export type { ReceivedScope, UnitReceived } from './unit-received.ts';
export { isEntrySpan } from './entry-span.ts';
