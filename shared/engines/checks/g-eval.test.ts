import { describe, expect, it } from 'vitest';
import type { JudgeClient, JudgeRequest, JudgeToken } from './contract.ts';
import { weightedScore } from './g-eval.ts';
import { createCheckRegistry } from './registry.ts';
import type { ModelCheckDefinition } from './definition.ts';
import { assistant, ctxWith, inputFrom, ok, scriptedJudge, user } from './test-support.ts';

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

const SUMMARIES = ['coherence_summary', 'consistency_summary', 'fluency_summary', 'relevance_summary'];
const withGEval = (name: string) => createCheckRegistry().createOrUpdateCheck({ kind: 'model', name, scoring: 'g_eval' } as ModelCheckDefinition);

describe('the *_summary checks score as defined: "an integer score ranging from 1 to 5"', () => {
  it.each(SUMMARIES)('%s answers the whole number the judge wrote, 4, and asks for no token probabilities', async (name) => {
    const judge = judgeWithProbabilities([alt('4', 0.5), alt('5', 0.5)]);
    const out = ok(await createCheckRegistry().get(name)!.run(summaryInput, ctxWith({ judge })));
    expect(judge.requests[0]?.tokenProbabilities).toBeUndefined();
    expect(out).toMatchObject({ value: 4, passed: true, explanation: 'mostly connected' });
    expect(judge.requests[0]?.system).toContain('Reply with a whole number from 1 to 5 in double square brackets');
  });

  it('refuses a fraction from the judge as an error naming the integer scale, never rounding it', async () => {
    const judge = scriptedJudge('[[4.5]] ((between))');
    const out = await createCheckRegistry().get('fluency_summary')!.run(summaryInput, ctxWith({ judge }));
    expect(out).toMatchObject({ status: 'error', error: 'the score is a whole number from 1 to 5; the judge answered 4.5', explanation: 'between' });
  });
});

describe('G-Eval weighting, our extension: scoring "g_eval" on a *_summary check', () => {
  it.each(SUMMARIES)('%s with scoring g_eval answers 4.5 where the judge wrote 4 with 5 as likely', async (name) => {
    const judge = judgeWithProbabilities([alt('4', 0.5), alt('5', 0.5)]);
    const check = withGEval(name);
    const out = ok(await check.run(summaryInput, ctxWith({ judge })));
    expect(judge.requests[0]?.tokenProbabilities).toBe(true);
    expect(out.value).toBe(4.5);
    expect(out.passed).toBe(true);
    expect(out.explanation).toBe('mostly connected [G-Eval: 4 (p 0.5), 5 (p 0.5) → 4.5; written 4]');
  });

  it('is a version of its own, keeping the rest of the catalog definition (a short line names only the setting)', () => {
    const reg = createCheckRegistry();
    const plain = reg.get('coherence_summary')!;
    const weighted = reg.createOrUpdateCheck({ kind: 'model', name: 'coherence_summary', scoring: 'g_eval' } as ModelCheckDefinition);
    expect(weighted.version).not.toBe(plain.version);
    const def = reg.definition('coherence_summary');
    expect(def).toMatchObject({ kind: 'model', scoring: 'g_eval', range: [1, 5], threshold: 3 });
    expect(def?.kind === 'model' ? def.promptTemplate : '').toContain('Rate the coherence');
  });

  it('is refused on a pass/fail check or under another name', () => {
    const reg = createCheckRegistry();
    expect(() => reg.createOrUpdateCheck({ kind: 'model', name: 'coherence_summary', scoring: 'geval' } as unknown as ModelCheckDefinition)).toThrow('scoring must be "g_eval", on a score check');
    expect(() => reg.createOrUpdateCheck({ kind: 'model', name: 'context_consistency', scoring: 'g_eval' } as ModelCheckDefinition)).toThrow('scoring must be "g_eval", on a score check');
  });

  it('keeps the written number, and says so, when the judge gives no token probabilities', async () => {
    const judge: JudgeClient = { complete: () => Promise.resolve({ text: '[[2]] ((jumps around))', model: 'test-judge', inputTokens: 1, outputTokens: 1 }) };
    const out = ok(await withGEval('coherence_summary').run(summaryInput, ctxWith({ judge })));
    expect(out).toMatchObject({ value: 2, passed: false, explanation: 'jumps around [the judge gave no token probabilities for its score: its written 2]' });
  });
});
