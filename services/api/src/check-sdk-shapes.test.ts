import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createModelCheck, type ModelCheckDefinition } from '../../../shared/engines/checks/index.ts';
import { ctxWith, inputFrom, scriptedJudge, assistant, user } from '../../../shared/engines/checks/test-support.ts';
import { createApp } from './create-app.ts';

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const judge = scriptedJudge((req) => (req.system.includes('CodeBasedCheck') ? '```python\nfrom okareo.checks import CodeBasedCheck\n\nclass Check(CodeBasedCheck):\n    @staticmethod\n    def evaluate(model_output: str) -> int:\n        return len(model_output.split())\n```' : '[[12]]'));
const app = createApp({ store, log, now: () => Date.UTC(2026, 10, 25), judge });
beforeAll(() => store.start());
afterAll(() => store.shutdown());

const request = async (path: string, method: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await app.request(path, { method, headers: { 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const storedDefinition = async (name: string): Promise<Record<string, unknown>> => {
  const doc = await store.getDoc('check', 'default', name);
  return (doc!.body as { versions: { definition: Record<string, unknown> }[] }).versions.at(-1)!.definition;
};

// The documented word-count check: "Only output the number of words …", the judge answers [[12]].
const wordCount = {
  name: 'word_count',
  description: 'Return the number of words in the model output',
  prompt_template: 'Only output the number of words in the following text: {generation}',
};

describe('create_or_update_check as the SDK sends it', () => {
  it.each(['SCORE', 'score', 'Score', 'CheckOutputType.SCORE'])('accepts check_type %s, and a score without a range takes the judge\'s 12', async (checkType) => {
    const saved = await request('/api/v1/checks', 'POST', { ...wordCount, check_type: checkType });
    expect([200, 201]).toContain(saved.status);
    const def = (await storedDefinition('word_count')) as unknown as ModelCheckDefinition;
    expect(def.outputType).toBe('score');
    const out = await createModelCheck(def).run(inputFrom([user('count'), assistant('one two three four five six seven eight nine ten eleven twelve')]), ctxWith({ judge }));
    expect(out).toMatchObject({ status: 'ok', value: 12, passed: null, method: 'model' });
  });

  it('accepts PASS_FAIL in any case; a range still bounds a score', async () => {
    expect((await request('/api/v1/checks', 'POST', { ...wordCount, name: 'adherence', check_type: 'PASS_FAIL' })).status).toBe(201);
    expect(await storedDefinition('adherence')).toMatchObject({ outputType: 'pass_fail' });
    expect((await request('/api/v1/checks', 'POST', { ...wordCount, name: 'bounded', check_type: 'SCORE', range: [1, 5] })).status).toBe(201);
    expect(await storedDefinition('bounded')).toMatchObject({ outputType: 'score', range: [1, 5] });
    expect(await request('/api/v1/checks', 'POST', { ...wordCount, name: 'bad', check_type: 'NUMBER' })).toMatchObject({ status: 400 });
  });

  it('saves the same name again as a new version of one check, listed once', async () => {
    await request('/api/v1/checks', 'POST', { ...wordCount, name: 'versions', check_type: 'SCORE' });
    const second = await request('/api/v1/checks', 'POST', { ...wordCount, name: 'versions', check_type: 'SCORE', description: 'counts words' });
    expect(second).toMatchObject({ status: 201, body: { name: 'versions', changed: true } });
    const listed = ((await request('/api/v1/checks', 'GET')).body.checks as { name: string; versions: unknown[] }[]).filter((c) => c.name === 'versions');
    expect(listed).toHaveLength(1);
    expect(listed[0].versions).toHaveLength(2);
  });
});

describe('upload_check as the SDK sends it', () => {
  const source = 'from okareo.checks import CodeBasedCheck\n\nclass Check(CodeBasedCheck):\n    @staticmethod\n    def evaluate(model_output: str) -> int:\n        return len(model_output)\n';

  it('output_data_type decides the result type: int and float are unbounded scores, bool is pass/fail', async () => {
    const body = { name: 'output_length', description: 'length', code: source, requires_scenario_input: false, requires_scenario_result: true, output_data_type: 'int', update: true };
    expect(await request('/api/v1/checks', 'POST', body)).toMatchObject({ status: 201 });
    expect(await storedDefinition('output_length')).toEqual({
      kind: 'code', name: 'output_length', description: 'length', outputType: 'score', range: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER], source, language: 'python', requires: ['scenario_result'],
    });
    expect(await request('/api/v1/checks', 'POST', { ...body, name: 'non_empty', output_data_type: 'bool' })).toMatchObject({ status: 201 });
    expect(await storedDefinition('non_empty')).toMatchObject({ outputType: 'pass_fail' });
  });

  it('update: false keeps an existing check with another definition (409); the same definition is unchanged (200)', async () => {
    const body = { name: 'kept', description: 'd', code: source, output_data_type: 'float', update: false };
    expect((await request('/api/v1/checks', 'POST', body)).status).toBe(201);
    expect((await request('/api/v1/checks', 'POST', body)).status).toBe(200);
    expect(await request('/api/v1/checks', 'POST', { ...body, description: 'other' })).toEqual({
      status: 409, body: { error: 'check "kept" exists with another definition; upload it with update=True to add a new version' },
    });
    expect((await request('/api/v1/checks', 'POST', { ...body, description: 'other', update: true })).status).toBe(201);
  });
});

describe('generate_check', () => {
  it('answers an EvaluatorSpecRequest with Python generated_code', async () => {
    const spec = { description: 'Return the number of words in the model output', requires_scenario_input: false, requires_scenario_result: false, output_data_type: 'int' };
    const res = await request('/api/v1/checks/generate', 'POST', spec);
    expect(res).toEqual({
      status: 200,
      body: { ...spec, language: 'python', generated_code: 'from okareo.checks import CodeBasedCheck\n\nclass Check(CodeBasedCheck):\n    @staticmethod\n    def evaluate(model_output: str) -> int:\n        return len(model_output.split())' },
    });
    expect(judge.requests.at(-1)!.system).toContain('def evaluate(model_output) -> int:');
  });

  it('is a 503 naming the settings without a model', async () => {
    const bare = createApp({ store, log });
    const res = await bare.request('/api/v1/checks/generate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ description: 'x', output_data_type: 'bool' }) });
    expect(res.status).toBe(503);
  });
});

describe('the TypeScript SDK snippets: project_id, display names, generated code uploaded without a file', () => {
  it('generate → upload {project_id, ...generated_check}: stored under its slug, found by display name and id', async () => {
    const generated = await request('/api/v1/checks/generate', 'POST', { project_id: 'some-project', name: 'demo.summaryUnder256', description: 'Pass if the output is under 256 characters', requires_scenario_input: false, requires_scenario_result: false, output_data_type: 'bool' });
    expect(generated).toMatchObject({ status: 200, body: { name: 'demo.summaryUnder256', output_data_type: 'bool' } });
    const uploaded = await request('/api/v1/checks', 'POST', { project_id: 'some-project', ...generated.body });
    expect(uploaded).toMatchObject({ status: 201, body: { id: 'demo_summaryunder256', name: 'demo_summaryunder256', display_name: 'demo.summaryUnder256', changed: true } });
    const named = await request('/api/v1/checks', 'POST', { name: 'Example Uploaded Check', project_id: 'p', description: 'd', requires_scenario_input: false, requires_scenario_result: false, output_data_type: 'bool', code: 'def evaluate(model_output):\n    return True\n', update: true });
    expect(named).toMatchObject({ status: 201, body: { id: 'example_uploaded_check', display_name: 'Example Uploaded Check' } });
    const listed = ((await request('/api/v1/checks', 'GET')).body.checks as { id: string; display_name?: string }[]).filter((c) => c.id.startsWith('example_uploaded'));
    expect(listed).toMatchObject([{ id: 'example_uploaded_check', display_name: 'Example Uploaded Check' }]);
    // Both spellings name the check (no sandbox here: the code check answers not_run, by its stored name).
    const scored = await request('/api/v1/checks/score', 'POST', { project_id: 'p', checks: ['Example Uploaded Check', 'example_uploaded_check'], rows: [{ model_output: 'x' }] });
    expect((scored.body.results as { check: string; status: string }[]).map((r) => [r.check, r.status])).toEqual([['example_uploaded_check', 'not_run'], ['example_uploaded_check', 'not_run']]);
    expect(await request('/api/v1/checks', 'POST', { name: 'no_source', description: 'd', output_data_type: 'bool' })).toMatchObject({ status: 400 });
  });

  it("takes a model check whose prompt names no variable, as the TypeScript SDK's own test writes it, and says what the judge gets", async () => {
    const prompt = 'Only output True if the model_output is at least 20 characters long, otherwise return False.';
    const saved = await request('/api/v1/checks', 'POST', { name: 'CI: Uploaded Model-based Check', description: prompt, prompt_template: prompt, check_type: 'PASS_FAIL', project_id: 'p' });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({ id: 'ci_uploaded_model_based_check', display_name: 'CI: Uploaded Model-based Check', warnings: ["the template uses no template variable: the judge gets the row's {model_output}, {scenario_input} and {scenario_result} after it"] });
  });

  it('tries a new version of a check named as the SDK shows it, by its display name or its id', async () => {
    const body = { name: 'Tried Display Check', description: 'short', prompt_template: 'Is {generation} short?', check_type: 'PASS_FAIL' };
    expect((await request('/api/v1/checks', 'POST', body)).status).toBe(201);
    const byName = await request(`/api/v1/checks/${encodeURIComponent('Tried Display Check')}/try`, 'POST', { ...body, description: 'shorter' });
    expect(byName).toMatchObject({ status: 200, body: { check: 'tried_display_check', units: 0 } });
    expect((await request('/api/v1/checks/tried_display_check/try', 'POST', { ...body, description: 'shorter' })).status).toBe(200);
    expect((await request('/api/v1/checks/other_check/try', 'POST', body)).status).toBe(400);
  });
});

