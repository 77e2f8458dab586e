import type { GenAiFamily } from '../../../../shared/contracts/schemas/index.ts';
import { extractLangfuse } from './families/langfuse.ts';
import { extractLegacySpanEvents } from './families/legacy-events.ts';
import { extractOpenInference } from './families/openinference.ts';
import { extractOpenLlmetry } from './families/openllmetry.ts';
import { extractOtelGenAi } from './families/otel-genai.ts';
import type { FamilyExtractor } from './families/types.ts';
import { extractVercelAi } from './families/vercel-ai.ts';

/**
 * The fixed order in which families are read; for each genai field the first family that provides
 * it wins (tracecheck.* attributes, read before all of these, win over every family). Why this order:
 * the current OTel attributes are the standard and carry structured messages; the AI SDK's own
 * ai.* attributes are richer than the gen_ai.* model/usage attributes it adds beside them but
 * never carry gen_ai messages, so the two do not compete for content; OpenInference and OpenLLMetry
 * are flattened (and may be cut at 128 attributes); span events are the oldest form. Langfuse's
 * observation attributes come last: its SDK also exports other instrumentations' spans, whose own
 * attributes are the more precise.
 * Documented in services/collector/README.md.
 */
export const FAMILY_PRECEDENCE: ReadonlyArray<{ family: GenAiFamily; extract: FamilyExtractor }> = [
  { family: 'otel_genai', extract: extractOtelGenAi },
  { family: 'vercel_ai', extract: extractVercelAi },
  { family: 'openinference', extract: extractOpenInference },
  { family: 'openllmetry', extract: extractOpenLlmetry },
  { family: 'otel_genai_legacy', extract: extractLegacySpanEvents },
  { family: 'langfuse', extract: extractLangfuse },
];
