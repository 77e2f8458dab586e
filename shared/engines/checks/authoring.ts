import type { CheckInput, CodeRunner, JudgeClient, OutputType } from './contract.ts';
import type { CodeCheckDefinition } from './definition.ts';
import { CheckDefinitionError } from './definition.ts';
import { codeCheckArgs, codeCheckProblems, coerceCodeValue } from './code-check.ts';

/** Sample inputs a new code check must handle before it is registered. */
export const SAMPLE_INPUTS: readonly CheckInput[] = [
  {
    id: 'sample-1', model_output: 'Your order #W123 has been cancelled and a refund of $42.00 was issued.', scenario_input: 'Cancel order #W123.',
    scenario_result: 'Order #W123 cancelled, refund $42.00.', model_input: [{ role: 'user', content: 'Cancel order #W123.' }],
    message_history: [
      { role: 'user', content: 'Cancel order #W123.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'cancel_order', arguments: '{"order_id":"#W123"}' } }] },
      { role: 'tool', tool_call_id: 'c1', name: 'cancel_order', content: '{"status":"cancelled","refund":42}' },
      { role: 'assistant', content: 'Your order #W123 has been cancelled and a refund of $42.00 was issued.' },
    ],
    tool_calls: [{ id: 'c1', name: 'cancel_order', arguments: '{"order_id":"#W123"}', result: '{"status":"cancelled","refund":42}', error: null }],
    tools: [], simulation_message_history: null, audio_messages: null, audio_output: null,
  },
  {
    id: 'sample-2', model_output: '', scenario_input: null, scenario_result: null, model_input: [], message_history: [],
    tool_calls: [], tools: [], simulation_message_history: null, audio_messages: null, audio_output: null,
  },
];

/**
 * Okareo's Python checks are written for units that carry their strings (`len(scenario_input)`),
 * so they are verified on the full sample; TypeScript/JavaScript modules on the empty one too.
 */
function defaultSamples(def: CodeCheckDefinition): readonly CheckInput[] {
  return def.language === 'python' ? SAMPLE_INPUTS.slice(0, 1) : SAMPLE_INPUTS;
}

/**
 * Compiles and runs a code check on sample inputs in the sandbox and checks the declared return
 * type. Throws CheckDefinitionError with every problem; returns the definition when it is sound.
 */
export async function verifyCodeCheck(def: CodeCheckDefinition, runner: CodeRunner, samples: readonly CheckInput[] = defaultSamples(def)): Promise<CodeCheckDefinition> {
  const problems = codeCheckProblems(def);
  if (problems.length > 0) throw new CheckDefinitionError(problems);
  for (const sample of samples) {
    const res = await runner.evaluate({ source: def.source, language: def.language, args: codeCheckArgs(sample), ...(def.timeoutMs ? { timeoutMs: def.timeoutMs } : {}) });
    if (!res.ok) throw new CheckDefinitionError([`on sample ${sample.id}: ${res.error}`]);
    const coerced = coerceCodeValue(def, res.value);
    if (!coerced.ok) throw new CheckDefinitionError([`on sample ${sample.id}: ${coerced.error}`]);
  }
  return def;
}

export interface GenerateCheckRequest {
  name: string;
  description: string;
  outputType: OutputType;
  range?: readonly [number, number];
  threshold?: number;
  /** Whether the check reads scenario_input / scenario_result. */
  needsScenario: boolean;
}

const GENERATOR_SYSTEM = `You write code checks for an AI-agent evaluation tool.
Write one self-contained TypeScript module (no imports, no I/O, no network, no timers) that exports
  export function evaluate(args: Args): RETURN
where args has: model_output (string|null), scenario_input (string|null), scenario_result (string|null),
model_input and message_history (arrays of {role, content, name?, tool_calls?, tool_call_id?}),
tool_calls (array of {id, name, arguments (JSON string), result (string|null), error (string|null)}),
tools (array of OpenAI tool definitions), simulation_message_history (array or null).
Handle missing or empty fields without throwing. Reply with the module only, in one \`\`\`ts code block.`;

/** generate_check's EvaluatorSpecRequest, in our words. */
export interface EvaluatorSpec {
  description: string;
  requiresScenarioInput: boolean;
  requiresScenarioResult: boolean;
  /** bool, int or float, as the SDK names them. */
  outputDataType: 'bool' | 'int' | 'float';
  language: 'python' | 'typescript';
}

const PYTHON_GENERATOR_SYSTEM = `You write code checks for an AI-agent evaluation tool.
Write one self-contained Python file (standard library only, no I/O, no network) in this form:
  from okareo.checks import CodeBasedCheck
  class Check(CodeBasedCheck):
      @staticmethod
      def evaluate(PARAMS) -> RETURN:
          ...
model_output is a string; scenario_input and scenario_result are strings or None.
Handle missing or empty values without raising. Reply with the file only, in one \`\`\`python code block.`;

/**
 * generate_check: asks the model for a check's source (Python as the SDK returns it, or our
 * TypeScript) and returns it unverified, as generated_code: the user reads it, then uploads it.
 */
export async function generateCheckSource(spec: EvaluatorSpec, judge: JudgeClient): Promise<string> {
  const returns = spec.outputDataType === 'bool' ? 'bool' : spec.outputDataType;
  const params = ['model_output', ...(spec.requiresScenarioInput ? ['scenario_input'] : []), ...(spec.requiresScenarioResult ? ['scenario_result'] : [])];
  const user = [
    `What the check decides: ${spec.description}`,
    `Return type: ${spec.outputDataType === 'bool' ? 'bool (True = pass)' : `${returns} (a score)`}.`,
    spec.requiresScenarioInput || spec.requiresScenarioResult ? `It reads ${params.slice(1).join(' and ')}.` : 'It must not rely on scenario_input or scenario_result.',
  ].join('\n');
  const system = spec.language === 'python'
    ? PYTHON_GENERATOR_SYSTEM.replace('PARAMS', params.join(', ')).replace('RETURN', returns)
    : GENERATOR_SYSTEM.replace('RETURN', spec.outputDataType === 'bool' ? 'boolean' : 'number');
  const res = await judge.complete({ system, user, temperature: 0, maxTokens: 1500 });
  const fence = spec.language === 'python' ? /```(?:python|py)?\s*\n([\s\S]*?)```/ : /```(?:ts|typescript|js|javascript)?\s*\n([\s\S]*?)```/;
  const block = fence.exec(res.text);
  return (block ? block[1] : res.text).trim();
}

/** Asks the judge model for a code check, then verifies it before returning the definition. */
export async function generateCodeCheck(req: GenerateCheckRequest, deps: { judge: JudgeClient; codeRunner: CodeRunner }): Promise<CodeCheckDefinition> {
  const returns = req.outputType === 'pass_fail' ? 'boolean (true = pass)' : `number in [${(req.range ?? [0, 1]).join(', ')}]`;
  const user = [
    `What the check decides: ${req.description}`,
    `Return type: ${returns}.`,
    req.needsScenario ? 'It needs scenario_input and/or scenario_result.' : 'It must not rely on scenario_input or scenario_result.',
  ].join('\n');
  const res = await deps.judge.complete({ system: GENERATOR_SYSTEM.replace('RETURN', req.outputType === 'pass_fail' ? 'boolean' : 'number'), user, temperature: 0, maxTokens: 1500 });
  const block = /```(?:ts|typescript|js|javascript)?\s*\n([\s\S]*?)```/.exec(res.text);
  const source = (block ? block[1] : res.text).trim();
  const def: CodeCheckDefinition = {
    kind: 'code',
    name: req.name,
    description: req.description,
    outputType: req.outputType,
    ...(req.range ? { range: req.range } : {}),
    ...(req.threshold !== undefined ? { threshold: req.threshold } : {}),
    source,
    language: 'typescript',
  };
  return verifyCodeCheck(def, deps.codeRunner);
}
