import type { Requester } from './request.js';
import type { CustomModel, ModelUnderTestResponse, RunTestProps, TestRunItem } from './types.js';

/**
 * A registered model: run_test runs it over a scenario set on the server, which scores every row
 * with the checks named and stores the run. A custom model is invoked here, row by row, and its
 * outputs go to the server with the run.
 */
export class ModelUnderTest {
  constructor(
    private readonly request: Requester,
    readonly mut: ModelUnderTestResponse,
    private readonly custom: CustomModel | null,
  ) {}

  async run_test(props: RunTestProps): Promise<TestRunItem> {
    const scenarioId = props.scenario_id ?? props.scenario?.scenario_id;
    if (!scenarioId) throw new Error('run_test needs a scenario (the answer of create_scenario_set) or a scenario_id');
    let modelResults: Record<string, { actual: unknown; model_input: unknown }> | undefined;
    if (this.custom) {
      const { data_points } = await this.request<{ data_points: { id: string; input: never }[] }>('GET', `/api/v1/scenario-sets/${encodeURIComponent(scenarioId)}/data-points`);
      modelResults = {};
      for (const point of data_points) {
        const invocation = await this.custom.invoke(point.input);
        modelResults[point.id] = { actual: invocation.model_prediction ?? null, model_input: invocation.model_input ?? point.input };
      }
    }
    return this.request('POST', '/api/v1/test-runs', {
      name: props.name,
      mut_id: this.mut.id,
      scenario_id: scenarioId,
      type: props.type,
      calculate_metrics: props.calculate_metrics ?? true,
      checks: props.checks ?? [],
      tags: props.tags ?? [],
      ...(props.project_id !== undefined ? { project_id: props.project_id } : {}),
      ...(modelResults ? { model_results: modelResults } : {}),
    });
  }

  /** The stored run with its rows. */
  get_test_run(test_run_id: string): Promise<TestRunItem> {
    return this.request('GET', `/api/v1/test-runs/${encodeURIComponent(test_run_id)}`);
  }
}
