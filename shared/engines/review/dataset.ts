import { stringify } from 'yaml';
import { z } from 'zod';
import type { QueryStore } from '../../adapters/store/contract.ts';
import type { Unit } from '../../contracts/schemas/index.ts';
import type { Review } from './schemas.ts';

// Datasets: immutable, versioned snapshots of stored units (inputs, output, people's verdicts and
// an expected answer) that export to llmeval tests (`tracecheck eval`) or JSONL.

export const DATASET_DOC_KIND = 'dataset';
/** Units per dataset version: one version is one stored document (at most 1 MB). */
export const MAX_DATASET_UNITS = 200;

export const DatasetNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'letters, digits, _ . - (at most 100)');

const VerdictSchema = z.object({ reviewer: z.string(), check: z.string(), check_version: z.string(), agrees: z.boolean(), verdict_value: z.number().nullable(), note: z.string(), labels: z.array(z.string()) });

const DatasetItemSchema = z.object({
  unit_id: z.string(),
  unit_revision: z.number().int(),
  agent_name: z.string().nullable(),
  agent_version: z.string().nullable(),
  /** The last user message: what a prompt template most often needs. */
  question: z.string().nullable(),
  model_input: z.array(z.unknown()),
  scenario_input: z.unknown().nullable(),
  tools: z.array(z.unknown()),
  output: z.unknown().nullable(),
  verdicts: z.array(VerdictSchema),
  /** A reviewer's corrected output where one was given, else null. */
  expected: z.string().nullable(),
});
export type DatasetItem = z.infer<typeof DatasetItemSchema>;

export const DatasetSchema = z.object({
  name: DatasetNameSchema,
  version: z.number().int().positive(),
  project: z.string(),
  created_at_ms: z.number(),
  source: z.string().describe('how the units were chosen'),
  items: z.array(DatasetItemSchema),
});
export type Dataset = z.infer<typeof DatasetSchema>;

function lastUserText(unit: Unit): string | null {
  const user = [...unit.model_input].reverse().find((m) => m.role === 'user');
  return user && typeof user.content === 'string' ? user.content : null;
}

/** One unit as a dataset item, with the reviews of it. */
export function datasetItem(unit: Unit, revision: number, reviews: readonly Review[]): DatasetItem {
  const expected = [...reviews].sort((a, b) => b.created_at_ms - a.created_at_ms).find((r) => r.expected !== null)?.expected ?? null;
  return {
    unit_id: unit.unit_id,
    unit_revision: revision,
    agent_name: unit.agent_name,
    agent_version: unit.agent_version,
    question: lastUserText(unit),
    model_input: unit.model_input,
    scenario_input: unit.scenario_input ?? null,
    tools: unit.tools,
    output: unit.model_output ?? null,
    verdicts: reviews.map((r) => ({ reviewer: r.reviewer, check: r.check, check_version: r.check_version, agrees: r.agrees, verdict_value: r.verdict_value, note: r.note, labels: r.labels })),
    expected,
  };
}

/** Stores a new version of a dataset (the highest so far + 1); versions are never rewritten. */
export async function putDataset(store: QueryStore, d: Omit<Dataset, 'version'>): Promise<Dataset> {
  const versions = (await listDatasets(store, d.project)).filter((x) => x.name === d.name).map((x) => x.version);
  const dataset: Dataset = { ...d, version: Math.max(0, ...versions) + 1 };
  await store.putDoc({ kind: DATASET_DOC_KIND, project: d.project, id: `${d.name}@${dataset.version}`, body: dataset, updated_at_ms: d.created_at_ms });
  return dataset;
}

export async function listDatasets(store: QueryStore, project: string): Promise<{ name: string; version: number; units: number; created_at_ms: number; source: string }[]> {
  const docs = await store.listDocs({ kind: DATASET_DOC_KIND, project, limit: 10_000 });
  return docs
    .flatMap((doc) => {
      const p = DatasetSchema.safeParse(doc.body);
      return p.success ? [{ name: p.data.name, version: p.data.version, units: p.data.items.length, created_at_ms: p.data.created_at_ms, source: p.data.source }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name) || a.version - b.version);
}

/** `NAME` (the latest version) or `NAME@VERSION`. */
export async function getDataset(store: QueryStore, project: string, ref: string): Promise<Dataset | null> {
  const m = /^(.+?)(?:@(\d+))?$/.exec(ref);
  if (!m) return null;
  const version = m[2] !== undefined ? Number(m[2]) : Math.max(0, ...(await listDatasets(store, project)).filter((d) => d.name === m[1]).map((d) => d.version));
  if (version === 0) return null;
  const doc = await store.getDoc(DATASET_DOC_KIND, project, `${m[1]}@${version}`);
  const parsed = doc ? DatasetSchema.safeParse(doc.body) : null;
  return parsed?.success ? parsed.data : null;
}

const textOf = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v));

/**
 * An llmeval tests file: `references:` with `input:` (question, the input messages as JSON, the
 * scenario) and `expected:` (a reviewer's correction, else omitted), ids from the unit ids.
 */
export function toLlmevalTests(d: Dataset): string {
  const references = d.items.map((item) => ({
    id: item.unit_id,
    description: `${d.name}@${d.version}: ${item.agent_name ?? 'agent'} ${item.agent_version ?? ''}`.trim(),
    input: {
      question: item.question ?? '',
      messages: JSON.stringify(item.model_input),
      ...(item.scenario_input !== null ? { scenario: textOf(item.scenario_input) } : {}),
      output: textOf(item.output),
    },
    ...(item.expected !== null ? { expected: item.expected } : {}),
  }));
  return stringify({ references }, { lineWidth: 0 });
}

/** One JSON object per line: `{id, input, output, expected, verdicts}` (what `tracecheck score` reads as records). */
export function toJsonl(d: Dataset): string {
  return d.items.map((i) => JSON.stringify({ id: i.unit_id, input: i.model_input, question: i.question, scenario_input: i.scenario_input, tools: i.tools, output: i.output, expected: i.expected, verdicts: i.verdicts })).join('\n') + '\n';
}
