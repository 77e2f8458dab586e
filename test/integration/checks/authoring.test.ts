import { afterAll, describe, expect, it } from 'vitest';
import { createCheckRegistry, generateCodeCheck, runCheck, verifyCodeCheck } from '../../../shared/engines/checks/index.ts';
import type { JudgeClient } from '../../../shared/engines/checks/index.ts';
import { createCodeSandbox } from '../../../shared/engines/code-sandbox/index.ts';

const sandbox = createCodeSandbox({ timeoutMs: 1_000 });
afterAll(() => sandbox.close());
const judgeReturning = (text: string): JudgeClient => ({ complete: () => Promise.resolve({ text, model: 'gen', inputTokens: 1, outputTokens: 1 }) });
const ctx = { judge: null, nowMs: () => 0, codeRunner: sandbox };

describe('generate_check and upload_check through the real sandbox', () => {
  it('registers a generated check that returns the declared type, and scores with it', async () => {
    const judge = judgeReturning('Here:\n```ts\nexport function evaluate(args: { model_output: string | null }): boolean {\n  return (args.model_output ?? "").includes("refund");\n}\n```');
    const def = await generateCodeCheck({ name: 'mentions_refund', description: 'The output mentions a refund.', outputType: 'pass_fail', needsScenario: false }, { judge, codeRunner: sandbox });
    const check = createCheckRegistry().createOrUpdateCheck(def);
    const input = { id: 'u', model_output: 'A refund was issued.', scenario_input: null, scenario_result: null, model_input: [], message_history: [], tool_calls: [], tools: [], simulation_message_history: null, audio_messages: null, audio_output: null };
    expect(await runCheck(check, input, ctx)).toEqual({ status: 'ok', value: 1, passed: true, method: 'code', explanation: 'evaluate returned true' });
  });

  it('refuses a generated check that returns the wrong type', async () => {
    const judge = judgeReturning('```ts\nexport function evaluate() { return "pass"; }\n```');
    await expect(generateCodeCheck({ name: 'bad', description: 'x', outputType: 'pass_fail', needsScenario: false }, { judge, codeRunner: sandbox })).rejects.toThrow(
      'on sample sample-1: evaluate returned a string ("pass"); a pass_fail check must return a boolean',
    );
  });

  it('refuses an uploaded check that throws on a sample', async () => {
    const def = { kind: 'code' as const, name: 'len', description: 'x', outputType: 'score' as const, range: [0, 1000] as const, language: 'javascript' as const, source: 'exports.evaluate = (a) => a.model_output.length / a.scenario_input.length;' };
    await expect(verifyCodeCheck(def, sandbox)).rejects.toThrow("invalid check definition: on sample sample-2: evaluate threw: TypeError: Cannot read properties of null (reading 'length')");
  });

  it('a code check that times out scores an error with the reason', async () => {
    const check = createCheckRegistry().createOrUpdateCheck({ kind: 'code', name: 'spin', description: 'x', outputType: 'pass_fail', language: 'javascript', timeoutMs: 200, source: 'exports.evaluate = () => { for (;;) {} };' });
    const input = { id: 'u', model_output: 'x', scenario_input: null, scenario_result: null, model_input: [], message_history: [], tool_calls: [], tools: [], simulation_message_history: null, audio_messages: null, audio_output: null };
    expect(await runCheck(check, input, ctx)).toEqual({ status: 'error', method: 'code', error: 'timed out after 200 ms' });
  });
});
