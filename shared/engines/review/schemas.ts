import { z } from 'zod';

// Review queues and reviews: the API's request and response contracts too (the OpenAPI document
// is generated from them), so no transforms.

const name = z.string().min(1).max(200);
const id = z.string().min(1).max(500);
/**
 * At most this many units added by id to one queue (a queue's filter brings in any number): read
 * in one store query. An alert names at most 20.
 */
export const MAX_QUEUE_UNIT_IDS = 500;
/** What queues stored before that cap may hold: they still read (one query per 500 ids). */
const STORED_QUEUE_UNIT_IDS = 10_000;

/** Which scored units a queue takes; every field given must match the unit's score of `check`. */
const ReviewQueueFilterSchema = z
  .object({
    check: name,
    check_version: name.optional(),
    status: z.enum(['ok', 'error', 'not_run']).optional(),
    passed: z.boolean().optional(),
    agent: name.optional(),
    agent_version: name.optional(),
    environment: name.optional(),
    service: name.optional(),
    unit_kind: z.enum(['trace', 'session', 'eval']).optional(),
    from_ms: z.number().int().nonnegative().optional().meta({ description: "Inclusive lower bound on the unit's end time (epoch ms)." }),
    to_ms: z.number().int().nonnegative().optional().meta({ description: "Exclusive upper bound on the unit's end time (epoch ms)." }),
    attributes: z.record(z.string().max(200), z.string().max(500)).optional().meta({ description: "Every pair must equal one of the unit's attributes." }),
  })
  .strict();

export const ReviewQueueInputSchema = z
  .object({
    name,
    filter: ReviewQueueFilterSchema,
    sample_rate: z.number().min(0).max(1).default(1).meta({ description: 'The share of matching units taken, by a hash of the unit id (as monitors sample).' }),
    unit_ids: z.array(id).max(MAX_QUEUE_UNIT_IDS).default([]).meta({ description: "Units added by id (e.g. an alert's `units`), whether or not the filter matches them." }),
  })
  .strict();

export const ReviewQueueSchema = ReviewQueueInputSchema.extend({
  unit_ids: z.array(id).max(STORED_QUEUE_UNIT_IDS),
  id: z.string(),
  project: z.string(),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
export type ReviewQueue = z.infer<typeof ReviewQueueSchema>;

export const ReviewerSchema = z.string().min(1).max(100).refine((s) => !/\p{Cc}/u.test(s), 'no control characters');

export const ReviewInputSchema = z
  .object({
    unit_id: id,
    check: name,
    agrees: z.boolean().optional().meta({ description: "The check's verdict is right (true) or wrong (false)." }),
    verdict_value: z.number().finite().optional().meta({ description: 'The correct value (score checks; for pass/fail checks 1 = pass, 0 = fail).' }),
    expected: z.string().max(100_000).optional().meta({ description: 'A corrected output, kept as the expected answer when the unit goes into a dataset.' }),
    reviewer: ReviewerSchema.optional().meta({ description: "Who reviews; default: the key's id (or `anonymous` while no key exists)." }),
    note: z.string().max(4_000).default(''),
    labels: z.array(z.string().min(1).max(100)).max(20).default([]),
    queue_id: id.optional(),
  })
  .strict()
  .refine((r) => r.agrees !== undefined || r.verdict_value !== undefined, { message: 'give agrees, verdict_value or both', path: ['agrees'] });

/** A person's verdict on one check's score of one unit, with what the check said when it was reviewed. */
export const ReviewSchema = z.object({
  project: z.string(),
  unit_id: z.string(),
  unit_revision: z.number().int().positive(),
  check: z.string(),
  check_version: z.string(),
  check_passed: z.boolean().nullable(),
  check_value: z.number().nullable(),
  agrees: z.boolean(),
  verdict_value: z.number().nullable(),
  expected: z.string().nullable(),
  reviewer: z.string(),
  note: z.string(),
  labels: z.array(z.string()),
  queue_id: z.string().nullable(),
  created_at_ms: z.number(),
  /** 1 for a reviewer's first review of this unit and check, 2 when they changed it, … */
  revision: z.number().int().positive(),
});
export type Review = z.infer<typeof ReviewSchema>;
