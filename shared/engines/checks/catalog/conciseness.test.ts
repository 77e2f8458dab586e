import { describe, expect, it } from 'vitest';
import { createCheckRegistry } from '../registry.ts';
import { assistant, ctxWith, inputFrom, ok, scriptedJudge, user } from '../test-support.ts';

// Okareo's description (okareo-python-sdk examples/checks.ipynb): "A measure of economy of words in
// the model_output. Lower scores indicate unnecessary verbosity in the model_output. Ranges from 1 to 5."
const input = inputFrom([user('What is the capital of France? Explain in detail, with its history.'), assistant('Paris.')], {
  scenario_input: 'What is the capital of France? Explain in detail, with its history.',
});

describe('conciseness as documented: the economy of words of the output alone', () => {
  it('reads only model_output: the request never reaches the judge', async () => {
    const reg = createCheckRegistry();
    expect(reg.catalogEntry('conciseness')?.inputs).toEqual(['model_output']);
    const judge = scriptedJudge('[[5]] ((no unnecessary word))');
    const out = ok(await reg.get('conciseness')!.run(input, ctxWith({ judge })));
    expect(judge.requests[0]?.user).toContain('Paris.');
    expect(judge.requests[0]?.user).not.toContain('capital of France');
    expect(out).toMatchObject({ value: 5, passed: true });
  });

  it('keeps our request-aware form as the extension conciseness_for_request', async () => {
    const reg = createCheckRegistry();
    expect(reg.catalogEntry('conciseness_for_request')?.inputs).toEqual(['scenario_input', 'model_output']);
    const judge = scriptedJudge('[[2]] ((drops the history the request asked for))');
    const out = ok(await reg.get('conciseness_for_request')!.run(input, ctxWith({ judge })));
    expect(judge.requests[0]?.user).toContain('capital of France');
    expect(out).toMatchObject({ value: 2, passed: false });
  });
});
