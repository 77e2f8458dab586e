import { describe, expect, it } from 'vitest';
import { assistant, ctxWith, inputFrom, scriptedJudge, user } from '../test-support.ts';
import { taskCompleted } from './task-completed.ts';

const check = taskCompleted.build(taskCompleted.definition);
const dialog = inputFrom([user('cancel ABC123'), assistant('Cancelled ABC123.')]);

describe('task_completed', () => {
  it('answers not_run with the reason when no judge is configured', async () => {
    expect(await check.run(dialog, ctxWith({ judge: null, judgeUnavailableReason: 'set OPENAI_BASE_URL' }))).toEqual({
      status: 'not_run',
      method: 'model',
      error: 'set OPENAI_BASE_URL',
    });
  });

  it('puts the rubric in the system message and the fenced data in the user message', async () => {
    const judge = scriptedJudge('[[True]] ((cancelled as asked))');
    const out = await check.run(dialog, ctxWith({ judge }));
    expect(out).toEqual({ status: 'ok', value: 1, passed: true, method: 'model', explanation: 'cancelled as asked', judgeModel: 'test-judge', inputTokens: 10, outputTokens: 5 });
    const req = judge.requests[0];
    expect(req.system).toContain('# Task');
    expect(req.system).toContain('# Steps\n1. ');
    expect(req.system).not.toContain('cancel ABC123');
    expect(req.system).toContain('Only the latest user request counts');
    expect(req.user).toMatch(/^<<<DATA-([0-9a-f]{24}) message_history>>>\n\[\n\{"role":"user","content":"cancel ABC123"\},\n\{"role":"assistant","content":"Cancelled ABC123\."\}\n\]\n<<<END-DATA-\1>>>/);
    expect(req.user).not.toContain('# Task');
  });

  it('reads a False answer', async () => {
    const out = await check.run(dialog, ctxWith({ judge: scriptedJudge('The agent did not confirm. [[ false. ]]') }));
    expect(out).toMatchObject({ status: 'ok', value: 0, passed: false });
  });

  it('turns an unreadable answer into an error, never a guess', async () => {
    const out = await check.run(dialog, ctxWith({ judge: scriptedJudge('[[probably]]') }));
    expect(out).toEqual({ status: 'error', method: 'model', error: 'judge answered [[probably]], not a pass/fail value', judgeModel: 'test-judge', inputTokens: 10, outputTokens: 5 });
  });

  it('turns a judge failure into an error outcome', async () => {
    const judge = { complete: () => Promise.reject(new Error('503 upstream')) };
    expect(await check.run(dialog, ctxWith({ judge }))).toEqual({ status: 'error', method: 'model', error: 'judge call failed: Error: 503 upstream' });
  });
});
