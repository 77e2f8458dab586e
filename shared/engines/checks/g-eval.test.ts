import { describe, expect, it } from 'vitest';
import type { JudgeClient, JudgeRequest, JudgeToken } from './contract.ts';
import { weightedScore } from './g-eval.ts';
import { createCheckRegistry } from './registry.ts';
import { assistant, ctxWith, inputFrom, ok, user } from './test-support.ts';

const alt = (token: string, p: number) => ({ token, logprob: Math.log(p) });
const tok = (token: string, ...top: { token: string; logprob: number }[]): JudgeToken => ({ token, top: top.length > 0 ? top : [{ token, logprob: 0 }] });

/** A judge that writes `[[4]] ((…))` and, asked for them, gives the score token's alternatives. */
function judgeWithProbabilities(top: { token: string; logprob: number }[]): JudgeClient & { requests: JudgeRequest[] } {
  const requests: JudgeRequest[] = [];
  return {
    requests,
    complete(req) {
      requests.push(req);
      const tokens = [tok('[['), tok('4', ...top), tok(']] ((mostly connected))')];
      return Promise.resolve({ text: '[[4]] ((mostly connected))', model: 'test-judge', inputTokens: 10, outputTokens: 5, ...(req.tokenProbabilities ? { tokens } : {}) });
    },
  };
}

const summaryInput = inputFrom([user('Summarize the article.'), assistant('The merger closed and shares rose.')], { scenario_input: 'The merger closed on Monday. Shares rose 4%.' });

describe('weightedScore (G-Eval)', () => {
  it('weights the scores the judge could have written by their probabilities', () => {
    const w = weightedScore('[[4]]', 2, [tok('[['), tok('4', alt('4', 0.75), alt('5', 0.25)), tok(']]')], [1, 5]);
    expect(w).toEqual({ value: 4.25, weights: [{ score: 4, p: 0.75 }, { score: 5, p: 0.25 }] });
  });

  it('renormalises over the scores in range, adding up spellings of one score and ignoring other tokens', () => {
    const w = weightedScore('[[4]]', 2, [tok('[['), tok('4', alt('4', 0.5), alt(' 4', 0.25), alt('Four', 0.125), alt('9', 0.125)), tok(']]')], [1, 5]);
    expect(w).toEqual({ value: 4, weights: [{ score: 4, p: 1 }] });
  });

  it('gives up (null) when the tokens do not spell the answer or the number shares its token', () => {
    expect(weightedScore('[[4]]', 2, [tok('[['), tok('5'), tok(']]')], [1, 5])).toBeNull();
    expect(weightedScore('[[4]]', 2, [tok('[[4'), tok(']]')], [1, 5])).toBeNull();
  });
});

describe('the G-Eval checks (*_summary) score as Okareo documents them: a float weighted by token probabilities', () => {
  it.each(['coherence_summary', 'consistency_summary', 'fluency_summary', 'relevance_summary'])('%s answers 4.5 where the judge wrote 4 with 5 as likely', async (name) => {
    const judge = judgeWithProbabilities([alt('4', 0.5), alt('5', 0.5)]);
    const check = createCheckRegistry().get(name)!;
    const out = ok(await check.run(summaryInput, ctxWith({ judge })));
    expect(judge.requests[0]?.tokenProbabilities).toBe(true);
    expect(out.value).toBe(4.5);
    expect(out.passed).toBe(true);
    expect(out.explanation).toBe('mostly connected [G-Eval: 4 (p 0.5), 5 (p 0.5) → 4.5]');
  });

  it('keeps the written number, and says so, when the judge gives no token probabilities', async () => {
    const judge: JudgeClient = { complete: () => Promise.resolve({ text: '[[2]] ((jumps around))', model: 'test-judge', inputTokens: 1, outputTokens: 1 }) };
    const out = ok(await createCheckRegistry().get('coherence_summary')!.run(summaryInput, ctxWith({ judge })));
    expect(out).toMatchObject({ value: 2, passed: false, explanation: 'jumps around [the judge gave no token probabilities for its score: its written 2]' });
  });

  it('does not ask the other score checks for token probabilities (coherence reads the written number)', async () => {
    const judge = judgeWithProbabilities([alt('4', 0.5), alt('5', 0.5)]);
    const out = ok(await createCheckRegistry().get('coherence')!.run(summaryInput, ctxWith({ judge })));
    expect(judge.requests[0]?.tokenProbabilities).toBeUndefined();
    expect(out.value).toBe(4);
  });
});
