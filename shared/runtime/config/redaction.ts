import { z } from 'zod';

export const REDACTION_MODES = ['off', 'detect', 'redact'] as const;
export type RedactionMode = (typeof REDACTION_MODES)[number];

/**
 * One of the operator's own redaction rules (TRACECHECK_REDACTION_RULES is a JSON array of them):
 * a pattern replaced wherever it is found, or attributes whose whole value is replaced; for every
 * project, or only the listed ones.
 */
const RedactionRuleSchema = z
  .object({
    /** The placeholder's kind (`<customer_id:1>`) and the metric's rule label. */
    name: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'lower-case letters, digits and "_", starting with a letter (at most 40)'),
    pattern: z.string().min(1).max(1000).optional(),
    /** Attribute keys (at any depth of a value: kvlists too) whose value is replaced whole. */
    attributes: z.array(z.string().min(1).max(256)).min(1).max(100).optional(),
    projects: z.array(z.string().min(1)).min(1).max(1000).optional(),
  })
  .strict()
  .refine((r) => (r.pattern === undefined) !== (r.attributes === undefined), { message: 'a rule has either "pattern" or "attributes"' });

export type RedactionRule = z.infer<typeof RedactionRuleSchema>;

/** TRACECHECK_REDACTION_RULES: JSON text → rules. */
export const redactionRulesFromJson = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array of rules: [{"name": "customer_id", "pattern": "CUST-[0-9]{6}"}, {"name": "address", "attributes": ["user.address"]}]' });
      return z.NEVER;
    }
  })
  .pipe(z.array(RedactionRuleSchema).max(100));
