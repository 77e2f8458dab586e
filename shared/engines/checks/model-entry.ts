import type { CatalogEntry } from './builtin-check.ts';
import type { ModelCheckDefinition } from './definition.ts';
import { CheckDefinitionError } from './definition.ts';
import { createModelCheck } from './model-check.ts';
import { judgedTemplate, templateFields } from './template.ts';

export interface JudgeRubric {
  name: string;
  description: string;
  outputType: 'pass_fail' | 'score';
  range?: readonly [number, number];
  threshold?: number;
  task: string;
  criteria: readonly string[];
  steps: readonly string[];
  /** Labelled input blocks, each `label: {variable}`. */
  inputs: readonly string[];
  /** One worked example: the data in short, then the answer line. */
  example: { data: string; answer: string };
  requires?: readonly string[];
  /** The definition's score is a whole number ("an integer score ranging from 1 to 5"): a fraction is an error. */
  integer?: boolean;
}

function outputFormat(r: JudgeRubric): string {
  if (r.outputType === 'pass_fail') return 'Reply with [[True]] if the criteria are met or [[False]] if they are not, then a one-sentence explanation in double parentheses, e.g. [[True]] ((why)).';
  const [lo, hi] = r.range ?? [0, 1];
  if (r.integer) return `Reply with a whole number from ${lo} to ${hi} in double square brackets, then a one-sentence explanation in double parentheses, e.g. [[${hi}]] ((why)).`;
  return `Reply with a number from ${lo} to ${hi} in double square brackets, then a one-sentence explanation in double parentheses, e.g. [[${hi}]] ((why)).`;
}

/** Our judge prompts: task, criteria, numbered steps, one example, labelled inputs, output format. */
export function rubricTemplate(r: JudgeRubric): string {
  return [
    `# Task\n${r.task}`,
    `# Criteria\n${r.criteria.map((c) => `- ${c}`).join('\n')}`,
    `# Steps\n${r.steps.map((s, i) => `${i + 1}. ${s}`).join('\n')}`,
    `# Example\n${r.example.data}\nAnswer: ${r.example.answer}`,
    `# Inputs\n${r.inputs.map((l) => `- ${l}`).join('\n')}`,
    `# Output format\n${outputFormat(r)}`,
  ].join('\n\n');
}

export function judgeEntry(r: JudgeRubric): CatalogEntry {
  const definition: ModelCheckDefinition = {
    kind: 'model',
    name: r.name,
    description: r.description,
    outputType: r.outputType,
    ...(r.range ? { range: r.range } : {}),
    ...(r.threshold !== undefined ? { threshold: r.threshold } : {}),
    promptTemplate: rubricTemplate(r),
    ...(r.requires ? { requires: r.requires } : {}),
  };
  return {
    definition,
    inputs: templateFields(judgedTemplate(definition.promptTemplate)),
    method: 'model',
    build(def) {
      if (def.kind !== 'model') throw new CheckDefinitionError([`${r.name} is a model check; got kind ${def.kind}`]);
      return createModelCheck(def, r.integer ? { integer: true } : {});
    },
  };
}
