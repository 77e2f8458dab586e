import type { GenAiFamily } from '../../../../shared/schemas/index.ts';
import { extractOtelGenAi } from './families/otel-genai.ts';
import type { FamilyExtractor } from './families/types.ts';

/**
 * The fixed order in which families are read; for each genai field the first family that provides
 * it wins. Documented in services/collector/README.md.
 */
export const FAMILY_PRECEDENCE: ReadonlyArray<{ family: GenAiFamily; extract: FamilyExtractor }> = [
  { family: 'otel_genai', extract: extractOtelGenAi },
];
