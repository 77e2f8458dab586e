import { z } from 'zod';

const emptyAsUndefined = (v: unknown): unknown => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const positiveInt = z.coerce.number().int().positive();

/** `http/protobuf`: POST to `<endpoint>/v1/logs`; `grpc`: the LogsService's Export at `<endpoint>`. */
const EXPORT_PROTOCOLS = ['http/protobuf', 'grpc'] as const;
type ExportProtocol = (typeof EXPORT_PROTOCOLS)[number];

/**
 * `key=value` pairs separated by commas, as OTEL_EXPORTER_OTLP_HEADERS writes them (values
 * percent-decoded): the receiver's key, for instance `Authorization=Bearer%20…`.
 */
const headerList = z
  .string()
  .default('')
  .transform((text, ctx): Record<string, string> => {
    const headers: Record<string, string> = {};
    for (const pair of text.split(',')) {
      if (pair.trim() === '') continue;
      const at = pair.indexOf('=');
      const name = at > 0 ? pair.slice(0, at).trim().toLowerCase() : '';
      if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
        ctx.addIssue({ code: 'custom', message: `"${pair.trim()}" is not name=value (a header name, "=", its value)` });
        continue;
      }
      try {
        headers[name] = decodeURIComponent(pair.slice(at + 1).trim());
      } catch {
        ctx.addIssue({ code: 'custom', message: `the value of "${name}" is not percent-encoded text` });
      }
    }
    return headers;
  });

/**
 * Every score the scorer writes also sent out as a `gen_ai.evaluation.result` log record
 * (docs/configuration.md, "Sending scores out"). Unset endpoint: nothing is sent. Spread into ConfigSchema.
 */
export const EVALUATION_EXPORT_ENV = {
  TRACECHECK_EXPORT_OTLP_ENDPOINT: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/, message: 'must be http://… or https://…' }).optional()),
  TRACECHECK_EXPORT_OTLP_HEADERS: headerList,
  TRACECHECK_EXPORT_OTLP_PROTOCOL: z.preprocess(emptyAsUndefined, z.enum(EXPORT_PROTOCOLS).default('http/protobuf')),
  TRACECHECK_EXPORT_OTLP_TIMEOUT_MS: positiveInt.default(10_000),
  // Scores waiting to be sent, at most: past it the oldest are dropped (and counted), never scoring held up.
  TRACECHECK_EXPORT_OTLP_MAX_QUEUE: positiveInt.default(20_000),
};

export interface EvaluationExportConfig {
  endpoint: string;
  protocol: ExportProtocol;
  headers: Record<string, string>;
  timeoutMs: number;
  maxQueue: number;
}

interface Parsed {
  TRACECHECK_EXPORT_OTLP_ENDPOINT?: string | undefined;
  TRACECHECK_EXPORT_OTLP_HEADERS: Record<string, string>;
  TRACECHECK_EXPORT_OTLP_PROTOCOL: ExportProtocol;
  TRACECHECK_EXPORT_OTLP_TIMEOUT_MS: number;
  TRACECHECK_EXPORT_OTLP_MAX_QUEUE: number;
}

export function evaluationExportOf(c: Parsed): EvaluationExportConfig | null {
  if (!c.TRACECHECK_EXPORT_OTLP_ENDPOINT) return null;
  return {
    endpoint: c.TRACECHECK_EXPORT_OTLP_ENDPOINT,
    protocol: c.TRACECHECK_EXPORT_OTLP_PROTOCOL,
    headers: c.TRACECHECK_EXPORT_OTLP_HEADERS,
    timeoutMs: c.TRACECHECK_EXPORT_OTLP_TIMEOUT_MS,
    maxQueue: c.TRACECHECK_EXPORT_OTLP_MAX_QUEUE,
  };
}
