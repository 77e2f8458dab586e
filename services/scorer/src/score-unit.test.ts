import { describe, expect, it } from 'vitest';
import { createCheckRegistry, createCodeCheck, createRecentOutputs } from '../../../shared/engines/checks/index.ts';
import type { CodeRunner } from '../../../shared/engines/checks/contract.ts';
import { scriptedJudge } from '../../../shared/engines/checks/test-support.ts';
import { createTestUnit } from '../../../test/helpers/unit-factory.ts';
import { scoreUnit } from './score-unit.ts';

describe('uniqueness live: compared with the agent version’s recent outputs', () => {
  it('runs on the window of the same agent and version, which each scored unit then joins', async () => {
    const uniqueness = createCheckRegistry().get('uniqueness')!;
    const judge = scriptedJudge((req) => (req.user.includes('model_output>>>\n"Berlin') ? '[[5]] ((new))' : '[[1]] ((a copy))'));
    const deps = { checks: [uniqueness], judge, judgeUnavailableReason: null, nowMs: () => 1, recentOutputs: createRecentOutputs() };
    const unit = (i: number, output: string, version = 'v1') => createTestUnit(i, { model_output: output, agent_version: version });

    const [first] = await scoreUnit(unit(1, 'Paris is the capital of France.'), deps);
    expect(first).toMatchObject({ check: 'uniqueness', status: 'not_run', error: 'no other outputs in this evaluation to compare with' });
    const [other] = await scoreUnit(unit(2, 'Paris is the capital of France.', 'v2'), deps);
    expect(other).toMatchObject({ status: 'not_run' });
    const [second] = await scoreUnit(unit(3, 'Paris is the capital of France.'), deps);
    expect(second).toMatchObject({ status: 'ok', value: 1, passed: false, explanation: 'a copy (compared with 1 other outputs)' });
    const [third] = await scoreUnit(unit(4, 'Berlin is the capital of Germany.'), deps);
    expect(third).toMatchObject({ status: 'ok', value: 5, passed: true, explanation: 'new (compared with 2 other outputs)' });
    expect(judge.requests).toHaveLength(2);

    // Without a window (the old scorer), it never ran live.
    const [without] = await scoreUnit(unit(5, 'x'), { ...deps, recentOutputs: undefined });
    expect(without).toMatchObject({ status: 'not_run', error: 'no other outputs in this evaluation to compare with' });
  });
});

describe('code checks run in the sandbox processes of the unit\'s project', () => {
  it('passes the unit\'s project to the code runner, and `default` for a unit without one', async () => {
    const check = createCodeCheck({ kind: 'code', name: 'long_enough', description: 'd', outputType: 'pass_fail', language: 'python', source: 'def evaluate(model_output):\n    return True\n' });
    const seen: (string | undefined)[] = [];
    const codeRunner: CodeRunner = {
      evaluate: (req) => {
        seen.push(req.project);
        return Promise.resolve({ ok: true, value: true });
      },
    };
    const deps = { checks: [check], judge: null, judgeUnavailableReason: null, nowMs: () => 1, codeRunner };
    await scoreUnit(createTestUnit(1, { project: 'acme' }), deps);
    await scoreUnit(createTestUnit(2), deps);
    expect(seen).toEqual(['acme', 'default']);
  });
});

describe('a unit whose messages arrived by reference', () => {
  const byReference = { message_history: [], model_input: [], model_output: null, content_refs: [{ span_id: 'a1', input: 's3://bucket/in.json', output: 's3://bucket/out.json' }] };
  const REASON = "the unit's messages were recorded by reference (1 model call, e.g. s3://bucket/in.json), not as text: there is no dialog to check";

  it('answers not_run with the reason for every check, without asking the judge or running code', async () => {
    const uniqueness = createCheckRegistry().get('uniqueness')!;
    const code = createCodeCheck({ kind: 'code', name: 'long_enough', description: 'd', outputType: 'pass_fail', language: 'python', source: 'def evaluate(model_output):\n    return True\n' });
    const judge = scriptedJudge(() => '[[5]]');
    let ran = 0;
    const codeRunner: CodeRunner = { evaluate: () => ((ran += 1), Promise.resolve({ ok: true, value: true })) };
    const scores = await scoreUnit(createTestUnit(1, byReference), { checks: [uniqueness, code], judge, judgeUnavailableReason: null, nowMs: () => 1, codeRunner, recentOutputs: createRecentOutputs() });
    expect(scores.map((s) => [s.check, s.status, s.error])).toEqual([
      ['uniqueness', 'not_run', REASON],
      ['long_enough', 'not_run', REASON],
    ]);
    expect([judge.requests.length, ran]).toEqual([0, 0]);
  });

  it('runs the checks as usual once text is there beside the references', async () => {
    const code = createCodeCheck({ kind: 'code', name: 'long_enough', description: 'd', outputType: 'pass_fail', language: 'python', source: 'def evaluate(model_output):\n    return True\n' });
    const codeRunner: CodeRunner = { evaluate: () => Promise.resolve({ ok: true, value: true }) };
    const [score] = await scoreUnit(createTestUnit(1, { ...byReference, model_output: 'Sunny.' }), { checks: [code], judge: null, judgeUnavailableReason: null, nowMs: () => 1, codeRunner });
    expect([score.status, score.value]).toEqual(['ok', 1]);
  });
});
