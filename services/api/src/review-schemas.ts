import { z } from 'zod';

// The agreement answer (shared/engines/review checkAgreement) as the API sends it. A proportion of
// nothing is NaN in the engine and null in JSON.

const IntervalSchema = z.object({ successes: z.number().int(), total: z.number().int(), proportion: z.number().nullable(), lower: z.number(), upper: z.number() });

export const CheckAgreementSchema = z.object({
  check: z.string(),
  version: z.string().nullable(),
  reviews: z.number().int(),
  versions: z.array(z.object({ version: z.string(), reviews: z.number().int() })),
  binary: z
    .object({
      confusion: z.object({ fail_fail: z.number().int(), fail_pass: z.number().int(), pass_fail: z.number().int(), pass_pass: z.number().int() }).describe('rows: the check; columns: people'),
      agreement: IntervalSchema.describe('agreeing reviews of all, with the 95% Wilson interval'),
      kappa: z.number().nullable().describe("Cohen's kappa"),
      fail_precision: z.number().nullable(),
      fail_recall: z.number().nullable(),
    })
    .nullable()
    .describe('pass/fail checks'),
  score: z.object({ n: z.number().int(), mean_abs_diff: z.number().nullable(), spearman: z.number().nullable() }).nullable().describe('score checks'),
  inter_reviewer: z.object({
    items: z.number().int(),
    pairs: z.number().int(),
    agreeing_pairs: z.number().int(),
    pairwise_agreement: z.number().nullable(),
    cohen_kappa: z.number().nullable(),
    fleiss_kappa: z.number().nullable(),
    raters: z.number().int(),
  }),
});
