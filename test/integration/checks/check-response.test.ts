import { afterAll, describe, expect, it } from 'vitest';
import { createCodeCheck, outputTypeOfValue, recordToCheckInput } from '../../../shared/engines/checks/index.ts';
import { createCodeSandbox } from '../../../shared/engines/code-sandbox/index.ts';

// The documented custom code check (Okareo's Code Checks page), unchanged: it imports CheckResponse
// from okareo.checks and returns one. Before: `ImportError: cannot import name 'CheckResponse'`.
const DOCUMENTED = `# In my_custom_check.py
from okareo.checks import CodeBasedCheck, CheckResponse

class Check(CodeBasedCheck):
    @staticmethod
    def evaluate(model_output: str, scenario_result: str) -> CheckResponse:
        passed = model_output.strip().lower() == scenario_result.strip().lower()
        return CheckResponse(
            score=passed,
            explanation="Exact match." if passed else "Output did not match reference.",
        )
`;

const sandbox = createCodeSandbox();
afterAll(() => sandbox.close());
const ctx = { judge: null, nowMs: () => 0, codeRunner: sandbox };
const row = (output: string, expected: string) => ({ ...recordToCheckInput({ id: 'r', messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: output }] }), scenario_result: expected });

describe('a code check returning CheckResponse, as documented', () => {
  it('scores with the response\'s score and explains with its explanation', async () => {
    const check = createCodeCheck({ kind: 'code', name: 'check_sample_code', description: 'exact match', language: 'python', source: DOCUMENTED, outputType: 'pass_fail' });
    expect(await check.run(row('Paris ', 'paris'), ctx)).toEqual({ status: 'ok', value: 1, passed: true, method: 'code', explanation: 'Exact match.' });
    expect(await check.run(row('Lyon', 'paris'), ctx)).toEqual({ status: 'ok', value: 0, passed: false, method: 'code', explanation: 'Output did not match reference.' });
    const sample = await sandbox.evaluate({ language: 'python', source: DOCUMENTED, args: { model_output: 'a', scenario_result: 'a' } });
    expect(sample).toEqual({ ok: true, value: { check_response: true, score: true, explanation: 'Exact match.' } });
    expect(outputTypeOfValue(sample.ok ? sample.value : null)).toBe('pass_fail');
  }, 120_000);
});
