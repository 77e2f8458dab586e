import type { JudgeClient } from '../../../../shared/engines/checks/index.ts';
import { errorMessage } from '../../../../shared/runtime/errors/index.ts';
import { createPrng, forEachLimited } from '../../../../shared/runtime/flow/index.ts';
import type { Logger } from '../../../../shared/runtime/logging/index.ts';
import type { ComparisonItem, ComparisonResult } from './comparison.ts';
import { summarizeComparison } from './comparison.ts';
import type { AlignedPair } from './outputs-file.ts';
import { buildPairwisePrompt } from './pairwise-prompt.ts';
import { parsePairwiseVerdict } from './verdict.ts';

export interface PairwiseOptions {
  pairs: readonly AlignedPair[];
  judge: JudgeClient;
  judgeModel?: string;
  /** Positions are drawn from this seed, in input order, so a run can be replayed exactly. */
  seed: number;
  concurrency: number;
  labelA: string;
  labelB: string;
  log: Logger;
  onItem?: () => void;
}

/** Asks the judge about every pair, each with A/B positions chosen by the seeded generator. */
export async function runPairwise(o: PairwiseOptions): Promise<ComparisonResult> {
  const random = createPrng(o.seed);
  const firsts = o.pairs.map((): 'a' | 'b' => (random() < 0.5 ? 'a' : 'b'));
  const items: ComparisonItem[] = new Array<ComparisonItem>(o.pairs.length);
  await forEachLimited(o.pairs, o.concurrency, async (pair, i) => {
    const first = firsts[i];
    const prompt = buildPairwisePrompt({
      input: pair.input,
      first: first === 'a' ? pair.a : pair.b,
      second: first === 'a' ? pair.b : pair.a,
      reference: pair.reference,
    });
    const base = { id: pair.id, input: pair.input, first };
    try {
      const res = await o.judge.complete({ ...prompt, ...(o.judgeModel ? { model: o.judgeModel } : {}), temperature: 0 });
      const verdict = parsePairwiseVerdict(res.text);
      if (verdict === null) {
        items[i] = { ...base, judgeAnswer: res.text, error: 'the judge gave no single [[A]], [[B]] or [[tie]] verdict' };
      } else {
        const second = first === 'a' ? 'b' : 'a';
        items[i] = { ...base, judgeAnswer: res.text, preferred: verdict === 'tie' ? null : verdict === 'A' ? first : second };
      }
    } catch (err) {
      o.log.warn({ err, id: pair.id }, 'pairwise judge call failed');
      items[i] = { ...base, error: errorMessage(err) };
    }
    o.onItem?.();
  });
  return summarizeComparison({ labelA: o.labelA, labelB: o.labelB, seed: o.seed, judgeModel: o.judgeModel ?? null, items });
}
