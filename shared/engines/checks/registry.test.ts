import { describe, expect, it } from 'vitest';
import type { ModelCheckDefinition } from './definition.ts';
import { createCheckRegistry } from './registry.ts';
import { runCheck } from './run-check.ts';
import { unitToCheckInput } from './check-input.ts';
import { assistant, ctxWith, inputFrom, scriptedJudge, user } from './test-support.ts';
import { TEMPLATE_VARIABLES, templateWarnings } from './template.ts';
import type { RunnableCheck } from './contract.ts';

const politeness: ModelCheckDefinition = {
  kind: 'model',
  name: 'politeness',
  description: 'Is the answer polite?',
  outputType: 'pass_fail',
  promptTemplate: 'Is this answer polite: {generation}? Reply [[True]] or [[False]].',
};

describe('check registry', () => {
  it('is preloaded with the catalog', () => {
    const reg = createCheckRegistry();
    expect(reg.get('function_result_present')?.kind).toBe('builtin');
    expect(reg.get('task_completed')?.kind).toBe('model');
    expect(reg.list().length).toBeGreaterThanOrEqual(2);
  });

  it('gives the same name a new version when the definition changes, and keeps the old one', () => {
    const reg = createCheckRegistry();
    const v1 = reg.createOrUpdateCheck(politeness);
    expect(reg.createOrUpdateCheck({ ...politeness }).version).toBe(v1.version);
    const v2 = reg.createOrUpdateCheck({ ...politeness, description: 'Is the answer polite and warm?' });
    expect(v2.version).not.toBe(v1.version);
    expect(v1.version).toMatch(/^[0-9a-f]{16}$/);
    expect(reg.get('politeness')?.version).toBe(v2.version);
    expect(reg.getVersion('politeness', v1.version)?.description).toBe('Is the answer polite?');
    expect(reg.history('politeness').map((h) => h.check.version)).toEqual([v1.version, v2.version]);
  });

  it('gives the judge the row\'s data after a template with no variable, as Okareo\'s own examples are written, and warns', async () => {
    const reg = createCheckRegistry();
    const prompt = 'Only output True if the model_output is at least 20 characters long, otherwise return False.';
    const check = reg.createOrUpdateCheck({ ...politeness, promptTemplate: prompt });
    expect(templateWarnings(prompt)).toEqual(["the template uses no template variable: the judge gets the row's {model_output}, {scenario_input} and {scenario_result} after it"]);
    const judge = scriptedJudge('[[True]]');
    const asked = judge.requests;
    const outcome = await check.run(inputFrom([user('Say something'), assistant('a reply of some length')]), ctxWith({ judge }));
    expect(outcome).toMatchObject({ status: 'ok', passed: true });
    expect(asked[0].system.split('\n')[0]).toBe(`${prompt}`);
    expect(asked[0].system).toContain('The data to evaluate: [the data block "model_output" in the user message], the input [the data block "scenario_input" in the user message] and the expected result [the data block "scenario_result" in the user message].');
    expect(asked[0].user).toMatch(/ model_output>>>\n"a reply of some length"\n/);
    expect(await check.run(inputFrom([user('Say something')], { model_output: null }), ctxWith({ judge }))).toMatchObject({ status: 'not_run' });
  });

  it('leaves an unknown {name} as-is in the prompt, as documented, and warns at creation', async () => {
    const reg = createCheckRegistry();
    const template = 'Check {generation} against {answer} and {context}.';
    const check = reg.createOrUpdateCheck({ ...politeness, promptTemplate: template });
    expect(templateWarnings(template)).toEqual([
      `{answer}, {context} are no template variables and are left as-is in the prompt (the variables: ${Object.keys(TEMPLATE_VARIABLES).map((n) => `{${n}}`).join(', ')})`,
    ]);
    expect(templateWarnings('Rate {output} for {audience}.')[0]).toMatch(/^\{audience\} is no template variable and is left as-is in the prompt \(the variables: \{generation\}, /);
    expect(templateWarnings('Rate {output}.')).toEqual([]);
    const judge = scriptedJudge('[[True]]');
    await check.run(inputFrom([user('hi'), assistant('Hello!')]), ctxWith({ judge }));
    expect(judge.requests[0]?.system.startsWith('Check [the data block "generation" in the user message] against {answer} and {context}.')).toBe(true);
  });

  it('refuses a builtin definition whose name has no implementation', () => {
    expect(() =>
      createCheckRegistry().createOrUpdateCheck({ kind: 'builtin', name: 'nope', description: '', outputType: 'pass_fail', implementationVersion: '1' }),
    ).toThrow('no builtin implementation named "nope"');
  });
});

describe('runCheck', () => {
  it('turns a throw into an error outcome', async () => {
    const boom: RunnableCheck = { name: 'boom', version: 'x', kind: 'builtin', outputType: 'pass_fail', description: '', run: () => Promise.reject(new TypeError('bad')) };
    expect(await runCheck(boom, inputFrom([user('x')]), ctxWith())).toEqual({ status: 'error', method: 'deterministic', error: 'check threw: TypeError: bad' });
  });
});

describe('unitToCheckInput', () => {
  it('maps the unit fields to the template variables', () => {
    const input = unitToCheckInput({
      schema_version: 1, unit_id: 'u1', kind: 'trace', trace_ids: ['t'], agent_name: null, agent_version: null, service: null, environment: null,
      conversation_id: null, model: null, model_input: [user('q')], model_output: 'a', message_history: [user('q')], tool_calls: [], tools: [],
      scenario_input: 'si', scenario_result: 'sr', simulation_id: null, simulation_message_history: null, usage: {}, errors: [], truncated: false,
      span_count: 1, start_time_ms: 0, end_time_ms: 1, assembled_at_ms: 2,
    });
    expect(input).toEqual({
      id: 'u1', model_output: 'a', scenario_input: 'si', scenario_result: 'sr', model_input: [user('q')], message_history: [user('q')],
      tool_calls: [], tools: [], simulation_message_history: null, audio_messages: null, audio_output: null,
    });
  });
});
