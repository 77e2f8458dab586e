import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClickHouseUrl, testKafkaBrokers, uniqueName } from '../../helpers/infra.ts';
import { runsOf, sendRuns } from '../../helpers/agent-runs.ts';
import { startPipeline, type Harness } from '../../helpers/pipeline-harness.ts';
import { pythonClientVenv, runPython } from '../../helpers/python-venv.ts';
import type * as TypeScriptClient from '../../../clients/typescript/src/index.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const exec = promisify(execFile);

// The documents' own snippets (Okareo's check docs), adapted only in the import and the
// constructor, against a running tracecheck in both modes (embedded: in-process bus and DuckDB;
// Kafka and ClickHouse), with the model server as the judge that generate_check asks.
const MODES = [
  { name: 'embedded', env: (): Record<string, string> => ({}) },
  { name: 'Kafka + ClickHouse', env: (): Record<string, string> => ({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('it_clients') }) },
];
const CHECK_FILE = `from tracecheck.checks import CodeBasedCheck


class Check(CodeBasedCheck):
    @staticmethod
    def evaluate(model_output: str, scenario_result: str) -> bool:
        return model_output.strip().lower() == scenario_result.strip().lower()
`;

const PYTHON_SNIPPETS = `import json, os
from tracecheck import Tracecheck as Okareo, ModelBasedCheck, CheckOutputType, EvaluatorSpecRequest
from my_custom_check import Check

okareo = Okareo(api_key=None, base_url=os.environ["TRACECHECK_URL"])

check = okareo.create_or_update_check(
    name="word_count",
    description="Return the number of words in the model output",
    check=ModelBasedCheck(
        prompt_template="Only output the number of words in the following text: {generation}",
        check_type=CheckOutputType.SCORE,
    ),
)
again = okareo.create_or_update_check(
    name="word_count",
    description="Counts the words of the model output",
    check=ModelBasedCheck(prompt_template="Only output the number of words in the following text: {generation}", check_type=CheckOutputType.SCORE),
)

check_sample_code = okareo.create_or_update_check(
    name="check_sample_code",
    description="Check if output matches the expected result exactly",
    check=Check(),
)

generate_request = EvaluatorSpecRequest(
    description="Return the number of words in the model output.",
    requires_scenario_input=False,
    requires_scenario_result=False,
    output_data_type="int",
)
check_description = okareo.generate_check(generate_request)
with open("word_count_check.py", "w") as f:
    f.write(check_description.generated_code)

uploaded = okareo.upload_check(
    name="word_count_code",
    file_path="word_count_check.py",
    requires_scenario_input=False,
    requires_scenario_result=False,
    output_data_type="int",
    description="Return the number of words in the model output.",
    update=True,
)

mine = [c.to_dict() for c in okareo.get_all_checks() if c.source == "user"]
scored = okareo.score_rows(checks=["check_sample_code", "levenshtein_distance"], rows=[
    {"id": "r1", "scenario_input": "Greet", "model_output": "Hello", "scenario_result": "hello"},
    {"id": "r2", "scenario_input": "Greet", "model_output": "Bye", "scenario_result": "hello"},
])
print(json.dumps({
    "scored": [[r.id, r.check, r.status, r.value, r.passed] for r in scored],
    "word_count": [check.changed, again.changed, len(again.versions)],
    "check_sample_code": check_sample_code.changed,
    "generated": check_description.generated_code,
    "uploaded": uploaded.changed,
    "mine": sorted([c["name"], c["kind"], c["output_type"], len(c["versions"])] for c in mine),
}))
`;

for (const mode of MODES) describe(`the Python and TypeScript clients against a running tracecheck (${mode.name})`, () => {
  let h: Harness;
  let dir: string;
  let python: string;
  const env = mode.env();
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tracecheck-clients-'));
    [h, python] = await Promise.all([startPipeline(env), pythonClientVenv()]);
    await exec(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(ROOT, 'clients', 'typescript', 'tsconfig.json')], { timeout: 120_000 });
  }, 300_000);
  afterAll(async () => {
    await h?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (env.TRACECHECK_CLICKHOUSE_DATABASE) await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${env.TRACECHECK_CLICKHOUSE_DATABASE}`)}`, { method: 'POST' }).catch(() => undefined);
  });

  it('Python: the documents\' create_or_update_check, generate_check, upload_check and get_all_checks run unchanged', async () => {
    writeFileSync(join(dir, 'my_custom_check.py'), CHECK_FILE);
    writeFileSync(join(dir, 'snippets.py'), PYTHON_SNIPPETS);
    const { stdout } = await runPython(python, 'snippets.py', dir, { TRACECHECK_URL: h.pipeline.apiUrl() });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out).toEqual({
      // The uploaded Python CodeBasedCheck runs in the scorer's sandbox; the catalog check beside it.
      scored: [['r1', 'check_sample_code', 'ok', 1, true], ['r1', 'levenshtein_distance', 'ok', 1, null], ['r2', 'check_sample_code', 'ok', 0, false], ['r2', 'levenshtein_distance', 'ok', 5, null]],
      word_count: [true, true, 2],
      check_sample_code: true,
      generated: 'from okareo.checks import CodeBasedCheck\n\n\nclass Check(CodeBasedCheck):\n    @staticmethod\n    def evaluate(model_output: str) -> int:\n        return len((model_output or "").split())',
      uploaded: true,
      mine: [['check_sample_code', 'code', 'pass_fail', 1], ['word_count', 'model', 'score', 2], ['word_count_code', 'code', 'score', 1]],
    });
  }, 180_000);

  it('TypeScript: the same calls, and reading scores', async () => {
    const client = (await import(join(ROOT, 'clients', 'typescript', 'dist', 'index.js'))) as typeof TypeScriptClient;
    const okareo = new client.Tracecheck({ base_url: h.pipeline.apiUrl() });
    const saved = await okareo.create_or_update_check({
      name: 'adherence_check',
      description: 'Check if model output follows the instructions in the context',
      check: { prompt_template: 'Context:\n{scenario_result}\n\nModel Output:\n{generation}\n\nAdherence (0 or 1 in double brackets):', check_type: client.CheckOutputType.PASS_FAIL },
    });
    expect(saved).toMatchObject({ name: 'adherence_check', changed: true });
    const generated = await okareo.generate_check({ description: 'the output is not empty', output_data_type: 'bool' });
    expect(generated.generated_code).toContain('def evaluate(model_output: str) -> bool:');
    const file = join(dir, 'non_empty.py');
    writeFileSync(file, generated.generated_code);
    expect(await okareo.upload_check({ name: 'non_empty', file_path: file, output_data_type: 'bool', update: false })).toMatchObject({ changed: true });
    await expect(okareo.upload_check({ name: 'non_empty', file_path: file, output_data_type: 'int', update: false })).rejects.toThrow('409: check "non_empty" exists with another definition');
    const checks = await okareo.get_all_checks();
    expect(checks.filter((c) => c.name === 'adherence_check' || c.name === 'non_empty').map((c) => [c.name, c.kind, c.output_type])).toEqual([
      ['adherence_check', 'model', 'pass_fail'],
      ['non_empty', 'code', 'pass_fail'],
    ]);
    expect(await okareo.get_scores({ check: 'adherence_check' })).toEqual([]);

    expect((await okareo.score_rows({ checks: ['non_empty', 'compression_ratio'], rows: [{ id: 'a', scenario_input: 'abcd', model_output: 'ab' }, { id: 'b', scenario_input: 'abcd', model_output: '' }] }))
      .map((r) => [r.id, r.check, r.status, r.value, r.passed])).toEqual([
      ['a', 'non_empty', 'ok', 1, true],
      ['a', 'compression_ratio', 'ok', 0.5, null],
      ['b', 'non_empty', 'ok', 0, false],
      ['b', 'compression_ratio', 'ok', 0, null],
    ]);
    // Reading the scores of a trace the pipeline scored.
    const [traceId] = await sendRuns(runsOf('client-agent', 'v1', 1, 0), { collectorUrl: h.pipeline.collectorUrl() });
    const deadline = Date.now() + 90_000;
    let scores: Awaited<ReturnType<typeof okareo.get_scores>> = [];
    while (scores.length === 0 && Date.now() < deadline) {
      scores = (await okareo.get_scores({ limit: 100 })).filter((s) => String(s.unit_id).includes(traceId));
      if (scores.length === 0) await new Promise((r) => setTimeout(r, 500));
    }
    expect(scores.length).toBeGreaterThan(0);
    expect(scores.every((s) => s.status === 'ok' || s.status === 'not_run')).toBe(true);
  }, 180_000);
});
