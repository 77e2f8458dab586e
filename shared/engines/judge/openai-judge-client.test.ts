import { describe, expect, it } from 'vitest';
import { createCheckRegistry } from '../checks/registry.ts';
import type { ModelCheckDefinition } from '../checks/definition.ts';
import { assistant, ctxWith, inputFrom, ok, user } from '../checks/test-support.ts';
import { createOpenAiJudgeClient } from './openai-judge-client.ts';

interface Sent {
  model: string;
  logprobs?: boolean;
  top_logprobs?: number;
}

/** An OpenAI-compatible endpoint in memory: answers `[[4]]`, with logprobs when asked; `refuses` answers 400 to logprobs. */
function endpoint(refuses: boolean) {
  const sent: Sent[] = [];
  const fetchFn = (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Sent;
    sent.push(body);
    if (refuses && body.logprobs) return Promise.resolve(new Response(JSON.stringify({ error: { message: 'logprobs are not supported with this model' } }), { status: 400, headers: { 'content-type': 'application/json' } }));
    const logprobs = body.logprobs
      ? { content: [{ token: '[[', logprob: 0, top_logprobs: [{ token: '[[', logprob: 0 }] }, { token: '4', logprob: Math.log(0.75), top_logprobs: [{ token: '4', logprob: Math.log(0.75) }, { token: '5', logprob: Math.log(0.25) }] }, { token: ']]', logprob: 0, top_logprobs: [{ token: ']]', logprob: 0 }] }] }
      : null;
    const completion = { id: 'c1', object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '[[4]]' }, logprobs }], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } };
    return Promise.resolve(new Response(JSON.stringify(completion), { status: 200, headers: { 'content-type': 'application/json' } }));
  };
  return { sent, fetch: fetchFn };
}

describe('the OpenAI judge client and token probabilities (G-Eval)', () => {
  it('asks for the top 5 alternatives of each token and returns them', async () => {
    const api = endpoint(false);
    const judge = createOpenAiJudgeClient({ baseUrl: 'http://judge.test/v1', apiKey: 'k', model: 'm', timeoutMs: 5_000, fetch: api.fetch });
    const res = await judge.complete({ system: 's', user: 'u', tokenProbabilities: true });
    expect(api.sent[0]).toMatchObject({ logprobs: true, top_logprobs: 5 });
    expect(res.tokens?.[1]).toEqual({ token: '4', top: [{ token: '4', logprob: Math.log(0.75) }, { token: '5', logprob: Math.log(0.25) }] });
  });

  it('does not ask for them otherwise', async () => {
    const api = endpoint(false);
    const judge = createOpenAiJudgeClient({ baseUrl: 'http://judge.test/v1', apiKey: 'k', model: 'm', timeoutMs: 5_000, fetch: api.fetch });
    const res = await judge.complete({ system: 's', user: 'u' });
    expect(api.sent[0]?.logprobs).toBeUndefined();
    expect(res.tokens).toBeUndefined();
  });

  it('asks again without them when the model refuses them (400): the check reads the written number', async () => {
    const api = endpoint(true);
    const judge = createOpenAiJudgeClient({ baseUrl: 'http://judge.test/v1', apiKey: 'k', model: 'm', timeoutMs: 5_000, fetch: api.fetch });
    const res = await judge.complete({ system: 's', user: 'u', tokenProbabilities: true });
    expect(api.sent.map((b) => b.logprobs ?? false)).toEqual([true, false]);
    expect(res).toMatchObject({ text: '[[4]]', inputTokens: 7, outputTokens: 3 });
    expect(res.tokens).toBeUndefined();
    // Remembered: the next request to that model does not ask for them again.
    await judge.complete({ system: 's', user: 'u', tokenProbabilities: true });
    expect(api.sent.map((b) => b.logprobs ?? false)).toEqual([true, false, false]);
  });

  it('gives coherence_summary with scoring g_eval its G-Eval score end to end: [[4]] at p 0.75 and 5 at p 0.25 score 4.25', async () => {
    const judge = createOpenAiJudgeClient({ baseUrl: 'http://judge.test/v1', apiKey: 'k', model: 'm', timeoutMs: 5_000, fetch: endpoint(false).fetch });
    const input = inputFrom([user('Summarize.'), assistant('The merger closed.')], { scenario_input: 'The merger closed on Monday.' });
    const check = createCheckRegistry().createOrUpdateCheck({ kind: 'model', name: 'coherence_summary', scoring: 'g_eval' } as ModelCheckDefinition);
    const out = ok(await check.run(input, ctxWith({ judge })));
    expect(out).toMatchObject({ value: 4.25, passed: true, explanation: '[G-Eval: 4 (p 0.75), 5 (p 0.25) → 4.25; written 4]' });
  });
});

type SentMessage = { role: string; content: string | Array<{ type: string; text?: string; input_audio?: { data: string; format: string } }> };

/** An endpoint that answers `[[4]] ((ok))`; `refusesAudio` answers 400 to any input_audio part, as a text-only model does. */
function audioEndpoint(refusesAudio: boolean) {
  const sent: { messages: SentMessage[] }[] = [];
  const fetchFn = (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as { model: string; messages: SentMessage[] };
    sent.push(body);
    const hasAudio = body.messages.some((m) => Array.isArray(m.content) && m.content.some((p) => p.type === 'input_audio'));
    if (refusesAudio && hasAudio) return Promise.resolve(new Response(JSON.stringify({ error: { message: 'This model does not support audio input.' } }), { status: 400, headers: { 'content-type': 'application/json' } }));
    const completion = { id: 'c1', object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '[[4]] ((ok))' }, logprobs: null }], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } };
    return Promise.resolve(new Response(JSON.stringify(completion), { status: 200, headers: { 'content-type': 'application/json' } }));
  };
  return { sent, fetch: fetchFn };
}

const audioRequest = {
  system: 's+note',
  user: 'u',
  audio: { parts: [{ data: 'UklGRg==', format: 'wav' as const }, { data: 'SUQz', format: 'mp3' as const }], textOnly: { system: 's', user: 'u (not heard)' } },
};

describe('the OpenAI judge client and audio', () => {
  it('sends the text then one input_audio part per recording, with the exact base64 and format', async () => {
    const api = audioEndpoint(false);
    const judge = createOpenAiJudgeClient({ baseUrl: 'http://judge.test/v1', apiKey: 'k', model: 'm', timeoutMs: 5_000, fetch: api.fetch });
    const res = await judge.complete(audioRequest);
    expect(api.sent[0].messages).toEqual([
      { role: 'system', content: 's+note' },
      { role: 'user', content: [{ type: 'text', text: 'u' }, { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }, { type: 'input_audio', input_audio: { data: 'SUQz', format: 'mp3' } }] },
    ]);
    expect(res.audioNotHeard).toBeUndefined();
  });

  it('a text request stays plain strings', async () => {
    const api = audioEndpoint(false);
    const judge = createOpenAiJudgeClient({ baseUrl: 'http://judge.test/v1', apiKey: 'k', model: 'm', timeoutMs: 5_000, fetch: api.fetch });
    await judge.complete({ system: 's', user: 'u' });
    expect(api.sent[0].messages).toEqual([{ role: 'system', content: 's' }, { role: 'user', content: 'u' }]);
  });

  it('a model that refuses audio (400) is asked the text-only request, and the answer says the audio was not heard', async () => {
    const api = audioEndpoint(true);
    const judge = createOpenAiJudgeClient({ baseUrl: 'http://judge.test/v1', apiKey: 'k', model: 'm', timeoutMs: 5_000, fetch: api.fetch });
    const res = await judge.complete(audioRequest);
    expect(api.sent.map((b) => b.messages)).toEqual([
      [{ role: 'system', content: 's+note' }, { role: 'user', content: [{ type: 'text', text: 'u' }, { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }, { type: 'input_audio', input_audio: { data: 'SUQz', format: 'mp3' } }] }],
      [{ role: 'system', content: 's' }, { role: 'user', content: 'u (not heard)' }],
    ]);
    expect(res).toMatchObject({ text: '[[4]] ((ok))', audioNotHeard: 'the judge model m refused audio input (400)' });
  });

  it('remembers the refusal: the next audio request to that model is sent text-only at once, another model still gets the audio', async () => {
    const api = audioEndpoint(true);
    const judge = createOpenAiJudgeClient({ baseUrl: 'http://judge.test/v1', apiKey: 'k', model: 'm', timeoutMs: 5_000, fetch: api.fetch });
    await judge.complete(audioRequest);
    const again = await judge.complete(audioRequest);
    await judge.complete({ ...audioRequest, model: 'other' });
    const kinds = api.sent.map((b) => (Array.isArray(b.messages[1].content) ? 'audio' : 'text'));
    expect(kinds).toEqual(['audio', 'text', 'text', 'audio', 'text']);
    expect(again.audioNotHeard).toBe('the judge model m refused audio input (400)');
  });

  it('a 400 to a text request is still a permanent error', async () => {
    const bad = (): Promise<Response> => Promise.resolve(new Response('{"error":{"message":"bad"}}', { status: 400, headers: { 'content-type': 'application/json' } }));
    const judge = createOpenAiJudgeClient({ baseUrl: 'http://judge.test/v1', apiKey: 'k', model: 'm', timeoutMs: 5_000, fetch: bad });
    await expect(judge.complete({ system: 's', user: 'u' })).rejects.toThrow('judge m answered 400');
  });
});
