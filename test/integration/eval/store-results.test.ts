import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalCommand } from '../../../cli/commands/eval.ts';
import { createModelServer, type ModelServer } from '../../../tools/model-server/src/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { runCli } from './helpers.ts';

const EXAMPLE = resolve(import.meta.dirname, '../../../examples/tracecheck.yaml');
let server: ModelServer;

beforeAll(async () => {
  server = createModelServer({ log: createSilentLogger(), port: 0 });
  await server.start();
});
afterAll(() => server.shutdown());

describe('tracecheck eval --store', () => {
  it('writes every try\'s metric results as scores with the run id, once even when stored again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tracecheck-eval-store-'));
    const out = mkdtempSync(join(tmpdir(), 'tracecheck-eval-out-'));
    const env = { OPENAI_BASE_URL: `${server.url()}/v1`, TRACECHECK_DATA_DIR: dataDir };
    const args = [EXAMPLE, 'prompts=math', `output=${out}`, 'cache=false', 'run_id=stored-1', 'temperature=1', 'model=mock-sloppy', '--store'];
    const first = await runCli(evalCommand, args, env);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('stored 12 scores in duckdb (environment eval:stored-1)');
    // Resuming the same run id and storing again replaces, it does not add.
    expect((await runCli(evalCommand, args, env)).code).toBe(1);

    const store = createDuckDbStore({ path: join(dataDir, 'tracecheck.duckdb'), log: createSilentLogger() });
    await store.start();
    try {
      const scores = await store.queryScores({ check: 'exact_match', limit: 1000 });
      expect(scores).toHaveLength(6);
      expect(new Set(scores.map((s) => [s.unit_kind, s.environment, s.agent_name, s.agent_version].join('|')))).toEqual(
        new Set(['eval|eval:stored-1|math|mock-sloppy max_tokens=64 temperature=1']),
      );
      const byRef = (ref: string) => scores.filter((s) => s.unit_id.includes(`:math:${ref}:`)).map((s) => [s.value, s.passed, s.method]);
      expect(byRef('two-plus-three')).toEqual([[0, false, 'code'], [0, false, 'code']]);
      expect(byRef('two-plus-two')).toEqual([[1, true, 'code'], [1, true, 'code']]);
    } finally {
      await store.shutdown();
    }
  });
});
