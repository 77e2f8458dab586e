import { describe, expect, it } from 'vitest';
import { runCli as run } from './test-support.ts';

describe('tracecheck', () => {
  it('--help lists every command', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    for (const name of ['up', 'collector', 'assembler', 'scorer', 'api', 'alerter', 'keys', 'score', 'checks', 'eval', 'compare', 'model-server', 'demo']) {
      expect(stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    }
  });

  it('rejects an unknown command with exit code 2', async () => {
    const { code, stderr } = await run(['frobnicate']);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown command "frobnicate"');
  });

  it('score writes one line per record and check, and says why a model check did not run', async () => {
    const record = {
      id: 'r1',
      messages: [
        { role: 'user', content: 'cancel my order' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'transfer_to_human_agents', arguments: '{}' } }] },
        { role: 'tool', content: 'Transfer successful', tool_call_id: 'c1' },
      ],
    };
    const { code, stdout } = await run(['score', '--checks', 'function_result_present,automated_resolution,task_completed'], `${JSON.stringify(record)}\n`);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.id, l.check, l.value, l.passed, l.method])).toEqual([
      ['r1', 'function_result_present', 1, true, 'deterministic'],
      ['r1', 'automated_resolution', 0, false, 'deterministic'],
      ['r1', 'task_completed', null, null, 'model'],
    ]);
    expect(lines[2].error).toMatch(/^not_run: no judge configured/);
  });

  it('checks list --json prints the whole catalog: the 39 documented checks and our five extensions', async () => {
    const { code, stdout } = await run(['checks', 'list', '--json']);
    expect(code).toBe(0);
    const catalog = JSON.parse(stdout) as Array<{ name: string }>;
    expect(catalog).toHaveLength(44);
    expect(catalog.slice(39).map((c) => c.name)).toEqual(['code_blocks_compile', 'conciseness_for_request', 'answer_relevance', 'instruction_adherence', 'tool_result_consistency']);
    expect(catalog.map((c) => c.name)).toContain('simulation_trace_consistency');
  });
});
