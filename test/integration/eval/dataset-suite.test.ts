import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checksCommand } from '../../../cli/commands/checks.ts';
import { datasetsCommand } from '../../../cli/commands/datasets.ts';
import { evalCommand } from '../../../cli/commands/eval.ts';
import type { CliCommand } from '../../../cli/command.ts';
import { createStore } from '../../../cli/compose.ts';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';
import { createReviewRepository, datasetItem, putDataset, type Review } from '../../../shared/engines/review/index.ts';
import { loadConfig } from '../../../shared/runtime/config/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import type { RunResult } from '../../../tools/eval/src/index.ts';
import { createModelServer, type ModelServer } from '../../../tools/model-server/src/index.ts';
import { testClickHouseUrl, uniqueName } from '../../helpers/infra.ts';
import { dropDatabase } from '../../helpers/score-counts.ts';

// The loop: 5 units people marked wrong become a dataset, its llmeval export runs in
// `tracecheck eval` unchanged (and straight from the store with --dataset), and `checks try` with a
// fixed judge prompt agrees with people on all 5 where the old version agreed on none. In both stores.

const log = createSilentLogger();
let server: ModelServer;
const dirs: string[] = [];
const databases: string[] = [];
beforeAll(async () => {
  server = createModelServer({ log, port: 0 });
  await server.start();
});
afterAll(async () => {
  await server.shutdown();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  for (const db of databases) await dropDatabase(testClickHouseUrl(), db);
});

const ids = [1, 2, 3, 4, 5].map((i) => `sum-${i}`);
const unit = (i: number): Unit => ({
  schema_version: 1, unit_id: `sum-${i}`, kind: 'trace', trace_ids: [`sum-${i}`], agent_name: 'calc', agent_version: 'v2', service: 's', environment: 'prod', conversation_id: null,
  model: 'm', model_input: [{ role: 'user', content: `What is ${i} + 10` }], model_output: `${i + 10}`,
  message_history: [{ role: 'user', content: `What is ${i} + 10` }, { role: 'assistant', content: `${i + 10}` }], tool_calls: [], tools: [], scenario_input: null, scenario_result: null,
  simulation_id: null, simulation_message_history: null, usage: { input_tokens: 1, output_tokens: 1 }, errors: [], truncated: false, span_count: 1,
  start_time_ms: 1_000, end_time_ms: 2_000, assembled_at_ms: 3_000, project: 'calc',
});
const score = (i: number): Score => ({
  schema_version: 1, unit_id: `sum-${i}`, unit_kind: 'trace', check: 'answered', check_version: 'old1', status: 'ok', value: 0, passed: false, explanation: 'no answer',
  method: 'model', error: null, judge_model: 'mock-judge', latency_ms: 1, input_tokens: 1, output_tokens: 1, cost_usd: 0, agent_name: 'calc', agent_version: 'v2',
  environment: 'prod', service: 's', unit_end_time_ms: 2_000, created_at_ms: 3_000 + i, project: 'calc',
});

async function run(cmd: CliCommand, argv: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d: Buffer) => (stdout += d.toString()));
  err.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await cmd.run(argv, { stdin: Readable.from(['']), stdout: out, stderr: err, env: { TRACECHECK_LOG_LEVEL: 'error', ...env } });
  return { code, stdout, stderr };
}

const modes: [string, (dir: string) => Record<string, string>][] = [
  ['embedded DuckDB', (dir) => ({ TRACECHECK_DATA_DIR: dir })],
  [
    'ClickHouse',
    () => {
      const db = uniqueName('tc_dataset_suite');
      databases.push(db);
      return { TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: db };
    },
  ],
];

describe.each(modes)('datasets into eval, and checks try (%s)', (_mode, storeEnv) => {
  it('the 5 disagreed units: the export runs unchanged (4 pass, 1 fails, exit 1); checks try reports old 0/5, new 5/5', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-dataset-suite-'));
    dirs.push(dir);
    const env = { ...storeEnv(dir), OPENAI_BASE_URL: `${server.url()}/v1`, OPENAI_API_KEY: 'unused', TRACECHECK_JUDGE_MODEL: 'mock-judge' };
    const store = createStore(loadConfig(env), log);
    await store.start();
    try {
      await store.writeUnits([1, 2, 3, 4, 5].map(unit));
      await store.writeScores([1, 2, 3, 4, 5].map(score));
      const repo = createReviewRepository(store);
      // People say every "fail" was wrong; four give the right answer as the expected output, one a wrong one.
      const reviews: Review[] = [];
      for (const i of [1, 2, 3, 4, 5]) {
        reviews.push(await repo.putReview({
          project: 'calc', unit_id: `sum-${i}`, unit_revision: 1, check: 'answered', check_version: 'old1', check_passed: false, check_value: 0, agrees: false,
          verdict_value: null, expected: i === 5 ? '99' : String(i + 10), reviewer: 'ann', note: '', labels: [], queue_id: null, created_at_ms: 10 + i,
        }));
      }
      const units = await Promise.all(ids.map((id) => store.getUnitRevision(id, 'calc')));
      await putDataset(store, { name: 'answered-wrong', project: 'calc', created_at_ms: 100, source: 'by id', items: units.map((u, k) => datasetItem(u!.unit, u!.revision, [reviews[k]])) });
    } finally {
      await store.shutdown();
    }

    const suite = join(dir, 'suite');
    expect((await run(datasetsCommand, ['export', 'answered-wrong', '--project', 'calc', '--format', 'llmeval', '--out', suite], env)).code).toBe(0);
    // The export's own prompt is replaced by this test's, which asks a model that gets one answer wrong.
    rmSync(join(suite, 'prompts'), { recursive: true, force: true });
    mkdirSync(join(suite, 'prompts'));
    writeFileSync(join(suite, 'prompts', 'calc.yaml'), 'name: calc\nmodel: mock-accurate\nprompt:\n  content: "{question}"\ndefaults: ../tests/answered-wrong.yaml\nmetrics:\n  - exact_match\n');
    writeFileSync(join(suite, 'llmeval.yaml'), 'prompts: prompts/*.yaml\ncache: false\noutput: runs\n');
    const results = (runId: string): [string, string, unknown][] =>
      (JSON.parse(readFileSync(join(suite, 'runs', runId, 'report.json'), 'utf8')) as RunResult).prompts[0].rows.map((r) => [r.reference.id, r.status, r.tries[0].actual]);
    const expected = [['sum-1', 'pass', '11'], ['sum-2', 'pass', '12'], ['sum-3', 'pass', '13'], ['sum-4', 'pass', '14'], ['sum-5', 'fail', '15']];

    const exported = await run(evalCommand, [join(suite, 'llmeval.yaml'), 'run_id=exported', '--quiet'], env);
    expect(exported.code).toBe(1);
    expect(results('exported')).toEqual(expected);
    // The same references straight from the store.
    const fromStore = await run(evalCommand, [join(suite, 'llmeval.yaml'), 'run_id=stored', '--quiet', '--dataset', 'answered-wrong@1', '--project', 'calc'], env);
    expect(fromStore.code).toBe(1);
    expect(results('stored')).toEqual(expected);
    expect((await run(evalCommand, [join(suite, 'llmeval.yaml'), '--dataset', 'nothing', '--project', 'calc'], env)).code).toBe(2);

    const fixed = join(dir, 'answered.json');
    writeFileSync(fixed, JSON.stringify({ name: 'answered', prompt_template: 'Did the assistant answer the question? Answer [[True]] or [[False]] with a reason in ((…)).\n\n{message_history}', check_type: 'PASS_FAIL' }));
    const tried = await run(checksCommand, ['try', '--check', 'answered', '--version', fixed, '--against', 'reviews', '--project', 'calc', '--json'], env);
    expect(tried.code).toBe(0);
    const t = JSON.parse(tried.stdout) as { current: { binary: { agreement: { successes: number; total: number } } }; candidate: { binary: { agreement: { successes: number; total: number } } }; differ: { unit_id: string }[] };
    expect([t.current.binary.agreement.successes, t.current.binary.agreement.total]).toEqual([0, 5]);
    expect([t.candidate.binary.agreement.successes, t.candidate.binary.agreement.total]).toEqual([5, 5]);
    expect(t.differ.map((d) => d.unit_id)).toEqual(ids);
    const text = await run(checksCommand, ['try', '--check', 'answered', '--version', fixed, '--against', 'reviews', '--project', 'calc'], env);
    expect(text.stdout.split('\n').slice(0, 5)).toEqual([
      'answered: 5 reviewed units, 5 reviews (project calc)',
      "version                agreement          95% Wilson        Cohen's kappa",
      'current (as reviewed)        0/5    0.0%  0.0% – 43.4%      0.000',
      expect.stringMatching(/^new [0-9a-f]+ +5\/5 +100\.0% {2}56\.6% – 100\.0% +–$/),
      'differ on 5 of 5 units',
    ]);
    expect((await run(checksCommand, ['try', '--check', 'answered', '--against', 'reviews', '--project', 'calc'], env)).code).toBe(2);
  });
});
