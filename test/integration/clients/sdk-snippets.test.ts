import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClickHouseUrl, testKafkaBrokers, uniqueName } from '../../helpers/infra.ts';
import { startPipeline, type Harness } from '../../helpers/pipeline-harness.ts';
import { pythonClientVenv, runPython } from '../../helpers/python-venv.ts';
import type * as TypeScriptClient from '../../../clients/typescript/src/index.ts';
import type { CheckCreateUpdateProps, OpenAIModel, RunTestProps, UploadEvaluatorProps } from '../../../clients/typescript/src/index.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const exec = promisify(execFile);

// Okareo's documented snippets (checks, generate → upload, scenario sets, register_model, run_test),
// written as the documentation writes them; only the import lines and the constructor are adapted.
// They run against a whole tracecheck, embedded (DuckDB) and on Kafka + ClickHouse, with the model
// server as the OpenAI-compatible model: it answers "What is 2 + 3?" with 5.
const MODES = [
  { name: 'embedded', env: (): Record<string, string> => ({}) },
  { name: 'Kafka + ClickHouse', env: (): Record<string, string> => ({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('it_sdk') }) },
];

// The documented CodeBasedCheck: no requires_* flags, so it runs on every row; a numeric return under a Union.
const DOCUMENTED_CHECK = `from typing import Union
from tracecheck.checks import CodeBasedCheck


class Check(CodeBasedCheck):
    @staticmethod
    def evaluate(model_output: str, scenario_input: str, scenario_result: str) -> Union[bool, int, float]:
        return len(model_output)
`;

const PYTHON = `import json, os
from tracecheck import Tracecheck as Okareo
from tracecheck import EvaluatorSpecRequest, ScenarioSetCreate, SeedData, TestRunType
from tracecheck import GenerationModel, CustomModel, ModelInvocation
from output_length import Check

okareo = Okareo(api_key=None, base_url=os.environ["TRACECHECK_URL"])
project_id = next((p.id for p in okareo.get_projects() if p.name == "Global"), None)

length_check = okareo.create_or_update_check(name="Output Length", description="The output's length", check=Check())
scored = okareo.score_rows(checks=["Output Length"], rows=[{"id": "bare", "model_output": "hello"}])

generate_request = EvaluatorSpecRequest(
    description="Pass if the model output is not empty.",
    requires_scenario_input=False,
    requires_scenario_result=False,
    output_data_type="bool",
)
check = okareo.generate_check(generate_request)
with open("not_empty_check.py", "w") as f:
    f.write(check.generated_code)
uploaded = okareo.upload_check(
    name="Not Empty Check",
    file_path="not_empty_check.py",
    requires_scenario_input=False,
    requires_scenario_result=False,
    output_data_type="bool",
    description="Pass if the model output is not empty.",
    update=True,
)

seed_data = [
    SeedData(input_="What is 2 + 3?", result="5"),
    SeedData(input_="What is 10 - 4?", result="6"),
    SeedData(input_="What is 3 * 3?", result="10"),
]
scenario = okareo.create_scenario_set(ScenarioSetCreate(name="Arithmetic", seed_data=seed_data, project_id=project_id))

model_under_test = okareo.register_model(
    name="Arithmetic Model",
    tags=["docs"],
    project_id=project_id,
    model=GenerationModel(
        model_id="gpt-4o-mini",
        temperature=0,
        system_prompt_template="You answer arithmetic questions with the number only.",
        user_prompt_template="{scenario_input}",
    ),
    update=True,
)
evaluation = model_under_test.run_test(
    name="Arithmetic run",
    scenario=scenario,
    project_id=project_id,
    test_run_type=TestRunType.NL_GENERATION,
    calculate_metrics=True,
    checks=["Not Empty Check", uploaded.id, "Output Length", "levenshtein_distance"],
    tags=["docs"],
)


class Shouter(CustomModel):
    def invoke(self, input_value):
        return ModelInvocation(model_prediction=str(input_value).upper(), model_input=input_value, model_output_metadata={})


shouter = okareo.register_model(name="Shouter", model=Shouter(name="Shouter"), update=True)
shouted = shouter.run_test(name="Shouter run", scenario=scenario, project_id=project_id,
                           test_run_type=TestRunType.NL_GENERATION, calculate_metrics=True, checks=["levenshtein_distance"])

stored = okareo.get_test_run(evaluation.id)
print(json.dumps({
    "length": [length_check.id, length_check.display_name, [[r.check, r.status, r.value] for r in scored]],
    "uploaded": [uploaded.id, uploaded.display_name],
    "run": [evaluation.name, evaluation.type, evaluation.test_data_point_count, evaluation.app_link == "/test-runs/" + evaluation.id, evaluation.model_metrics],
    "rows": [[r["model_output"], {k: v["value"] for k, v in sorted(r["scores"].items())}] for r in stored.rows],
    "shouted": [r["model_output"] for r in okareo.get_test_run(shouted.id).rows],
    "listed": [r.name for r in okareo.find_test_runs()],
}))
`;

for (const mode of MODES) describe(`Okareo's documented snippets against a running tracecheck (${mode.name})`, () => {
  let h: Harness;
  let dir: string;
  let python: string;
  const env = mode.env();
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tracecheck-sdk-'));
    [h, python] = await Promise.all([startPipeline(env), pythonClientVenv()]);
    await exec(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(ROOT, 'clients', 'typescript', 'tsconfig.json')], { timeout: 120_000 });
  }, 300_000);
  afterAll(async () => {
    await h?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (env.TRACECHECK_CLICKHOUSE_DATABASE) await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${env.TRACECHECK_CLICKHOUSE_DATABASE}`)}`, { method: 'POST' }).catch(() => undefined);
  });

  it('Python: a documented CodeBasedCheck, generate → upload, a scenario set, register_model and run_test', async () => {
    writeFileSync(join(dir, 'output_length.py'), DOCUMENTED_CHECK);
    writeFileSync(join(dir, 'snippets.py'), PYTHON);
    const { stdout } = await runPython(python, 'snippets.py', dir, { TRACECHECK_URL: h.pipeline.apiUrl() });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out).toEqual({
      // Rows without scenario fields still run it; the Union return is a score.
      length: ['output_length', 'Output Length', [['output_length', 'ok', 5]]],
      uploaded: ['not_empty_check', 'Not Empty Check'],
      run: ['Arithmetic run', 'NL_GENERATION', 3, true, {
        mean_scores: { not_empty_check: 1, output_length: 1, levenshtein_distance: 2 / 3 },
        pass_rates: { not_empty_check: 1 },
        checks: [
          { check: 'not_empty_check', version: expect.any(String), output_type: 'pass_fail', scored: 3, errors: 0, not_run: 0, mean: 1, pass_rate: 1 },
          { check: 'output_length', version: expect.any(String), output_type: 'score', scored: 3, errors: 0, not_run: 0, mean: 1, pass_rate: null },
          { check: 'levenshtein_distance', version: expect.any(String), output_type: 'score', scored: 3, errors: 0, not_run: 0, mean: 2 / 3, pass_rate: null },
        ],
      }],
      rows: [
        ['5', { levenshtein_distance: 0, not_empty_check: 1, output_length: 1 }],
        ['6', { levenshtein_distance: 0, not_empty_check: 1, output_length: 1 }],
        ['9', { levenshtein_distance: 2, not_empty_check: 1, output_length: 1 }],
      ],
      shouted: ['WHAT IS 2 + 3?', 'WHAT IS 10 - 4?', 'WHAT IS 3 * 3?'],
      listed: ['Shouter run', 'Arithmetic run'],
    });
  }, 240_000);

  it('TypeScript: generate → upload without a file, a display-named upload, a scenario set, register_model, run_test, and two runs compared', async () => {
    const client = (await import(join(ROOT, 'clients', 'typescript', 'dist', 'index.js'))) as typeof TypeScriptClient;
    const { Tracecheck: Okareo, TestRunType, SeedData, CheckOutputType } = client;
    const okareo = new Okareo({ base_url: h.pipeline.apiUrl() });
    const file_path = join(dir, 'example_check.py');
    writeFileSync(file_path, 'def evaluate(model_output: str, scenario_result: str) -> bool:\n    return model_output.strip() == scenario_result.strip()\n');

    // --- the documentation's snippets, as written (its casts too) ---
    /* eslint-disable @typescript-eslint/no-unnecessary-type-assertion */
    const project: { id: string; name: string }[] = await okareo.getProjects();
    const project_id = project.find((p) => p.name === 'Global')?.id;
    const generated_check = await okareo.generate_check({
      project_id,
      name: 'demo.summaryUnder256',
      description: 'Pass if the model output is not empty.',
      requires_scenario_input: false,
      requires_scenario_result: false,
      output_data_type: 'bool',
    });
    const check = await okareo.upload_check({ project_id, ...generated_check } as UploadEvaluatorProps);
    const uploaded = await okareo.upload_check({
      name: 'Example Uploaded Check',
      project_id,
      description: 'Pass if the output is the expected result',
      requires_scenario_input: false,
      requires_scenario_result: true,
      output_data_type: 'bool',
      file_path,
      update: true,
    });
    const sData = await okareo.create_scenario_set({
      name: 'TS Arithmetic',
      project_id,
      seed_data: [SeedData({ input: 'What is 2 + 3?', result: '5' }), SeedData({ input: 'What is 10 - 4?', result: '6' }), SeedData({ input: 'What is 3 * 3?', result: '10' })],
    });
    const model = await okareo.register_model({
      name: 'TS Arithmetic Model',
      tags: ['docs'],
      project_id,
      models: { type: 'openai', model_id: 'gpt-4o-mini', temperature: 0, system_prompt_template: 'You answer arithmetic questions with the number only.', user_prompt_template: '{scenario_input}' } as OpenAIModel,
      update: true,
    });
    const eval_run = await model.run_test({
      model_api_key: 'unused',
      name: 'TS run',
      tags: ['docs'],
      project_id,
      scenario: sData,
      calculate_metrics: true,
      type: TestRunType.NL_GENERATION,
      checks: ['Example Uploaded Check', check.id],
    } as RunTestProps);
    const prompt = 'Only output True if the output is at least 20 characters long, otherwise return False: {model_output}';
    const check_config = { prompt_template: prompt, type: CheckOutputType.PASS_FAIL };
    const check_info = { project_id, name: 'CI: Uploaded Model-based Check', description: prompt, check_config } as CheckCreateUpdateProps;
    const model_check = await okareo.create_or_update_check(check_info);
    /* eslint-enable @typescript-eslint/no-unnecessary-type-assertion */
    // --- end of the snippets ---

    expect([model_check.id, model_check.display_name, model_check.changed]).toEqual(['ci_uploaded_model_based_check', 'CI: Uploaded Model-based Check', true]);
    expect((await okareo.get_check('CI: Uploaded Model-based Check')).output_type).toBe('pass_fail');

    expect([check.id, check.display_name, uploaded.id, uploaded.display_name]).toEqual(['demo_summaryunder256', 'demo.summaryUnder256', 'example_uploaded_check', 'Example Uploaded Check']);
    expect(eval_run.model_metrics.pass_rates).toEqual({ example_uploaded_check: 2 / 3, demo_summaryunder256: 1 });

    // A callable in the client as the model, and the two runs compared over the same scenario set.
    const echo = await okareo.register_model({ name: 'Right answers', project_id, models: { type: 'custom', invoke: (input) => ({ model_prediction: ({ 'What is 2 + 3?': '5', 'What is 10 - 4?': '6', 'What is 3 * 3?': '10' } as Record<string, string>)[typeof input === 'string' ? input : ''] }) } });
    const right = await echo.run_test({ name: 'TS right', project_id, scenario: sData, calculate_metrics: true, type: TestRunType.NL_GENERATION, checks: ['Example Uploaded Check'] });
    expect(right.model_metrics.pass_rates).toEqual({ example_uploaded_check: 1 });
    const compared = (await (await fetch(`${h.pipeline.apiUrl()}/api/v1/test-runs/compare?a=${eval_run.id}&b=${right.id}`)).json()) as { checks: unknown[] };
    expect(compared.checks).toEqual([
      expect.objectContaining({ check: 'example_uploaded_check', a: { scored: 3, passed: 2, mean: 2 / 3 }, b: { scored: 3, passed: 3, mean: 1 }, paired: { a: 0, b: 1, ties: 2, share_a: 0, share_b: 1 / 3, p_value: 1 } }),
    ]);
    const page = await (await fetch(`${h.pipeline.apiUrl()}/test-runs`)).text();
    expect(page).toContain('TS right');
    expect(page).toContain('TS run');
  }, 240_000);
});
