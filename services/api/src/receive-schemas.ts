import { z } from 'zod';
import { GenAiFamilySchema } from '../../../shared/contracts/schemas/index.ts';
import { DIAGNOSTIC_CODES } from '../../../shared/engines/diagnose/index.ts';

// Answer shapes of what-we-receive (GET /api/v1/ingest/recent) and of a unit's diagnostics.

export const DiagnosticSchema = z.object({
  code: z.enum(DIAGNOSTIC_CODES).describe('stable: match on it'),
  message: z.string().describe('what is missing, naming the instrumentation it came from'),
  fix: z.string().describe('the setting or change that fixes it'),
  scope: z.string().nullable().describe('the instrumentation scope (`name version`) it is about'),
});

const ServiceReceiptSchema = z.object({
  service: z.string().nullable().describe('`service.name`; null for spans without one'),
  last_seen_ms: z.number(),
  content: z.enum(['all', 'some', 'none', 'no_model_calls']).describe('whether message text arrived on the units with model calls listed here'),
  units: z.array(
    z.object({
      unit_id: z.string(),
      end_time_ms: z.number(),
      root_name: z.string().nullable().describe("the root span's name"),
      span_count: z.number().int(),
      content: z.boolean().nullable().describe('message text arrived; null: no model call'),
      scopes: z.array(z.string()),
    }),
  ),
  scopes: z.array(
    z.object({
      name: z.string(),
      version: z.string().nullable(),
      family: GenAiFamilySchema.nullable().describe('the convention family its spans were read with'),
      units: z.number().int(),
      spans: z.number().int(),
      span_names: z.array(z.string()),
      model_calls: z.number().int(),
      model_calls_with_content: z.number().int(),
      logs: z.number().int().describe('log records (GenAI message events) of its spans'),
    }),
  ),
  warnings: z.array(DiagnosticSchema.extend({ units: z.number().int(), example_unit: z.string() })),
});
export const RecentSchema = z.object({ services: z.array(ServiceReceiptSchema), units_listed: z.number().int() });
