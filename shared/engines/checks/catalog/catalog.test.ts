import { describe, expect, it } from 'vitest';
import { createCheckRegistry } from '../registry.ts';
import { ctxWith, inputFrom, user, assistant } from '../test-support.ts';
import { catalogEntries } from './index.ts';

const NAMES = [
  'conciseness', 'uniqueness', 'fluency', 'fluency_summary', 'coherence', 'coherence_summary', 'consistency', 'consistency_summary', 'relevance',
  'relevance_summary', 'does_code_compile', 'contains_all_imports', 'compression_ratio', 'levenshtein_distance', 'levenshtein_distance_input',
  'behavior_adherence', 'task_completed', 'result_completed', 'model_refusal', 'loop_guard', 'automated_resolution', 'response_consistency',
  'response_loop', 'simulation_trace_consistency', 'function_call_consistency', 'function_call_validator', 'function_parameter_accuracy',
  'function_result_present', 'context_relevance', 'context_consistency', 'reference_similarity', 'faithfulness', 'toxicity', 'fairness',
  'empathy_score', 'is_code_functional', 'is_best_option', 'reverse_qa_quality', 'rephrase_quality', 'code_blocks_compile',
  'conciseness_for_request', 'answer_relevance', 'instruction_adherence', 'tool_result_consistency',
];

describe('the predefined catalog', () => {
  it('lists the 39 documented names, then our five extensions, once each', () => {
    expect(catalogEntries.map((e) => e.definition.name)).toEqual(NAMES);
    expect(createCheckRegistry().list().map((c) => c.name)).toEqual(NAMES);
  });

  it('gives every judge prompt a task, criteria, numbered steps, one example, labelled inputs and an output format', () => {
    for (const e of catalogEntries) {
      if (e.definition.kind !== 'model') continue;
      const t = e.definition.promptTemplate;
      for (const section of ['# Task\n', '# Criteria\n- ', '# Steps\n1. ', '# Example\n', '# Inputs\n- ', '# Output format\n']) expect(t, e.definition.name).toContain(section);
      expect(t.match(/\nAnswer: \[\[/g)?.length, e.definition.name).toBe(1);
      expect(e.inputs.length, e.definition.name).toBeGreaterThan(0);
    }
  });

  it('runs every check on a plain dialog without an error (model checks: not_run without a judge)', async () => {
    const reg = createCheckRegistry();
    const input = inputFrom([user('Summarize: the cat sat on the mat.'), assistant('A cat sat on a mat.')], { scenario_input: 'the cat sat on the mat.', scenario_result: 'A cat sat on the mat.' });
    for (const check of reg.list()) {
      const out = await check.run(input, ctxWith({ batch: [input, { ...input, id: 'other', model_output: 'Dogs bark.' }] }));
      expect(out.status, `${check.name}: ${JSON.stringify(out)}`).not.toBe('error');
      // function_call_consistency decides a dialog without a call in code, as documented (0).
      if (check.name === 'function_call_consistency') expect(out).toMatchObject({ status: 'ok', value: 0, passed: false, method: 'deterministic' });
      else if (check.kind === 'model') expect(out).toMatchObject({ status: 'not_run', method: 'model' });
    }
  });

  it('gives the changed checks their defined inputs, output types and ranges', () => {
    const entry = (name: string) => catalogEntries.find((e) => e.definition.name === name)!;
    for (const name of ['toxicity', 'fairness']) expect(entry(name).definition).toMatchObject({ outputType: 'score', range: [1, 5], threshold: 4 });
    expect(entry('uniqueness')).toMatchObject({ method: 'model', definition: { outputType: 'score', range: [1, 5], threshold: 3 } });
    expect(entry('behavior_adherence').inputs).toEqual(['scenario_result', 'model_output']);
    expect(entry('faithfulness').inputs).toEqual(['scenario_result', 'model_output']);
    expect(entry('task_completed').inputs).toEqual(['message_history', 'model_output']);
    expect(entry('is_code_functional').inputs).toEqual(['model_input', 'model_output']);
    expect(entry('function_call_validator')).toMatchObject({ method: 'model', inputs: ['message_history', 'tools', 'tool_calls'] });
    expect(entry('compression_ratio').inputs).toEqual(['model_output', 'scenario_input']);
  });
});
