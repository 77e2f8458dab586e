import type { SpanGenAi } from '../../../../../shared/contracts/schemas/index.ts';
import type { Attributes, DecodedEvent, DecodedScope, DecodedSpan } from '../../otlp/types.ts';

/** What a family extractor sees. Extractors remove the attributes (and events) they consume. */
export interface SpanInput {
  span: DecodedSpan;
  scope: DecodedScope;
  attrs: Attributes;
  events: DecodedEvent[];
  /** Every original attribute key, each preceded by a newline: one `includes` answers "any key with this prefix?". */
  keyIndex: string;
}

export function keyIndexOf(attrs: Attributes): string {
  return `\n${Object.keys(attrs).join('\n')}`;
}

/** Whether the span arrived with an attribute under `prefix` (it may since have been consumed). */
export function hasPrefix(input: SpanInput, prefix: string): boolean {
  return input.keyIndex.includes(`\n${prefix}`);
}

export type FamilyFields = Omit<SpanGenAi, 'family' | 'truncated'>;

export type FamilyExtractor = (input: SpanInput) => FamilyFields | undefined;

/** The span's error text, for tool executions: status message, else the exception event, else error.type. */
export function spanErrorText(input: SpanInput): string | undefined {
  if (input.span.status.code !== 2) return undefined;
  if (input.span.status.message) return input.span.status.message;
  for (const e of input.events) {
    if (e.name === 'exception') {
      const m = e.attributes['exception.message'] ?? e.attributes['exception.type'];
      if (typeof m === 'string' && m) return m;
    }
  }
  const t = input.attrs['error.type'];
  return typeof t === 'string' && t ? t : 'error';
}
