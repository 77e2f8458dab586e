import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createDuckDbStore } from '../../shared/adapters/store/index.ts';
import type { Unit } from '../../shared/contracts/schemas/index.ts';
import { createSilentLogger } from '../../shared/runtime/logging/index.ts';
import { compareCommand } from './compare.ts';

const T = Date.UTC(2026, 10, 25, 12, 0, 0);

function unit(id: string, version: string, duration: number): Unit {
  return {
    schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: 'planner', agent_version: version, service: null, environment: 'prod', conversation_id: null, model: 'gpt-4o',
    model_input: [], model_output: null, message_history: [], tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null,
    usage: { input_tokens: 100, output_tokens: 10 }, errors: [], truncated: false, span_count: 3, start_time_ms: T - duration, end_time_ms: T, assembled_at_ms: T,
    duration_ms: duration, llm_calls: 1, tool_call_count: 0, tool_errors: 0, cost_usd: duration / 1e6, unpriced_llm_calls: 0, price_table: 't', tokens_by_model: {}, steps: [],
  };
}

describe('tracecheck compare --metrics', () => {
  it('ranks the stored runs of v2 against v1 on duration, cost and tokens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-compare-metrics-'));
    try {
      const store = createDuckDbStore({ path: join(dir, 'tracecheck.duckdb'), log: createSilentLogger() });
      await store.start();
      await store.writeUnits([...[11, 12, 13, 14, 15, 19].map((d, i) => unit(`a${i}`, 'v1', d * 100)), ...[16, 17, 18, 20, 21, 22, 25].map((d, i) => unit(`b${i}`, 'v2', d * 100))]);
      await store.shutdown();
      const run = async (argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
        const out = new PassThrough();
        const err = new PassThrough();
        let stdout = '';
        let stderr = '';
        out.on('data', (d: Buffer) => (stdout += d.toString()));
        err.on('data', (d: Buffer) => (stderr += d.toString()));
        const code = await compareCommand.run(argv, { stdin: Readable.from(['']), stdout: out, stderr: err, env: { TRACECHECK_DATA_DIR: dir, TRACECHECK_LOG_LEVEL: 'error' } });
        return { code, stdout, stderr };
      };
      const text = await run(['--metrics', '--a', 'agent_version=v1', '--b', 'agent_version=v2']);
      expect(text.code).toBe(0);
      expect(text.stdout.split('\n')).toEqual([
        'duration_ms  A median 1350 (n=6)  B median 2000 (n=7)  B-A 600 [200, 1000]  p=0.0082 (exact)  higher',
        'cost_usd     A median 0.001350 (n=6)  B median 0.002000 (n=7)  B-A 0.000600 [0.000200, 0.001000]  p=0.0082 (exact)  higher',
        'tokens       A median 110 (n=6)  B median 110 (n=7)  B-A 0 [0, 0]  p=1.0000 (normal)  no significant difference',
        '',
      ]);
      const json = await run(['--metrics', '--json', '--a', 'agent_version=v1', '--b', 'agent_version=v2', '--from', String(T + 1)]);
      expect(JSON.parse(json.stdout)).toMatchObject({ metrics: [{ metric: 'duration_ms', a: { n: 0 }, verdict: 'insufficient data' }, {}, {}] });
      expect((await run(['--metrics', '--a', 'agent_version=v1', '--b', 'agent_version=v1'])).code).toBe(2);
      expect((await run(['--metrics', '--a', 'model=x', '--b', 'agent_version=v1'])).stderr).toMatch(/unknown filter in model=x/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
