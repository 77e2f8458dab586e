import { describe, expect, it } from 'vitest';
import type { ModelCheckDefinition } from '../definition.ts';
import { createCheckRegistry } from '../registry.ts';
import { assistant, ctxWith, inputFrom, scriptedJudge, user } from '../test-support.ts';
import { catalogEntries } from './index.ts';

const entry = (name: string) => catalogEntries.find((e) => e.definition.name === name)!;
const template = (name: string) => (entry(name).definition as ModelCheckDefinition).promptTemplate;
const requires = (name: string) => (entry(name).definition as ModelCheckDefinition).requires;

describe('six rubrics read as their definitions do', () => {
  it('relevance rates summary relevance: relevant information rewarded, redundancy and irrelevance penalised', () => {
    expect(template('relevance')).toContain('- Redundancies (the same point made more than once) lower the score.');
    expect(template('relevance')).toContain('- Information that is irrelevant to the source, or trivial in it, lowers the score.');
    expect(template('answer_relevance')).toContain('- The output addresses the question or request in the input.');
    expect(template('relevance')).not.toContain('addresses the question');
  });

  it('behavior_adherence takes its instructions from the scenario result only, adherence not accuracy', () => {
    expect(entry('behavior_adherence').inputs).toEqual(['scenario_result', 'model_output']);
    expect(template('behavior_adherence')).toContain('- The instructions are the ones in the scenario result, and only those.');
    expect(template('behavior_adherence')).toContain('Judge adherence, not factual accuracy');
    expect(entry('instruction_adherence').inputs).toEqual(['scenario_result', 'model_input', 'model_output']);
  });

  it('result_completed judges the message history against the scenario result, with no "every question" fallback', () => {
    expect(entry('result_completed').inputs).toEqual(['scenario_result', 'message_history']);
    expect(requires('result_completed')).toEqual(['scenario_result', 'message_history']);
    expect(template('result_completed')).not.toContain('every question');
  });

  it('response_consistency judges contradictions and drift across turns; going beyond tool results is tool_result_consistency', () => {
    expect(template('response_consistency')).toContain('Information drift fails');
    expect(template('response_consistency')).not.toContain('goes beyond');
    expect(template('tool_result_consistency')).toContain('Answer True only if no statement contradicts or goes beyond them.');
  });

  it('context_consistency fails a claim the input does not support, general knowledge included', () => {
    expect(template('context_consistency')).toContain('- Ignore external facts: a claim the input does not support fails even when it is true or general knowledge.');
    expect(template('context_consistency')).not.toContain('general knowledge, not specifics');
  });

  it('faithfulness reads the scenario result as its context, and no tool results', () => {
    expect(entry('faithfulness').inputs).toEqual(['scenario_result', 'model_output']);
    expect(requires('faithfulness')).toEqual(['scenario_result', 'model_output']);
  });
});

describe('a check whose defined input is missing is not_run, saying which', () => {
  const noResult = inputFrom([user('What is my total?'), assistant('Your total is $1,286.')], { scenario_input: 'What is my total?' });

  it.each([
    ['result_completed', 'needs scenario_result, which this unit does not carry'],
    ['faithfulness', 'needs scenario_result, which this unit does not carry'],
    ['behavior_adherence', 'needs scenario_result, which this unit does not carry'],
  ])('%s without a scenario result: not_run "%s", the judge not asked', async (name, reason) => {
    const judge = scriptedJudge('[[True]]');
    const out = await createCheckRegistry().get(name)!.run(noResult, ctxWith({ judge }));
    expect(out).toEqual({ status: 'not_run', method: 'model', error: reason });
    expect(judge.requests).toHaveLength(0);
  });

  it('instruction_adherence, the extension, runs without one on the model input', async () => {
    const judge = scriptedJudge('[[True]] ((no instruction violated))');
    const out = await createCheckRegistry().get('instruction_adherence')!.run(noResult, ctxWith({ judge }));
    expect(out).toMatchObject({ status: 'ok', value: 1, passed: true });
    expect(judge.requests).toHaveLength(1);
  });

  it('faithfulness with a scenario result asks the judge with the context and the output only', async () => {
    const judge = scriptedJudge('[[5]] ((consistent))');
    const out = await createCheckRegistry().get('faithfulness')!.run({ ...noResult, scenario_result: 'The total is $1,286.' }, ctxWith({ judge }));
    expect(out).toMatchObject({ status: 'ok', value: 5, passed: true });
    expect(judge.requests[0]?.user).toContain('"The total is $1,286."');
    expect(judge.requests[0]?.user).not.toContain('tool_calls');
  });
});
