import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CliCommand, CliIo } from '../command.ts';
import { apiKey, parseVerbArgs, withStoreOrServer } from '../store-command.ts';
import { loadRegistry } from '../check-runtime.ts';
import { ServerApiError } from '../running-server.ts';
import { loadConfig } from '../../shared/runtime/config/index.ts';
import { getDataset, listDatasets, reviewedChecks, toJsonl, toLlmevalSuite, type Dataset } from '../../shared/engines/review/index.ts';

const USAGE = `usage: tracecheck datasets list [--project P] [--key KEY]
       tracecheck datasets show NAME[@VERSION] [--project P] [--key KEY]
       tracecheck datasets export NAME[@VERSION] --format llmeval|jsonl --out DIR [--model M] [--project P] [--key KEY]

Datasets are immutable, versioned snapshots of stored units (POST /api/v1/datasets: by unit ids, by
query, or the units a review queue marked wrong), read from the store (ClickHouse, or the embedded
DuckDB file; while "tracecheck up" holds that file, through its API with an admin or read key of
the project: --key or TRACECHECK_API_KEY, needed once the project has keys).
"export --format llmeval" writes a suite "tracecheck eval DIR/llmeval.yaml" runs as written:
DIR/llmeval.yaml, DIR/prompts/NAME.yaml (each unit's last user message asked again of --model,
default TRACECHECK_JUDGE_MODEL, scored by the checks people reviewed) and DIR/tests/NAME.yaml (the
references: input and expected). "--format jsonl" writes DIR/NAME.jsonl.
The project defaults to "default" (through the API: the key's).
`;

type Summary = Awaited<ReturnType<typeof listDatasets>>[number];

interface DatasetSource {
  list(): Promise<Summary[]>;
  get(ref: string): Promise<Dataset | null>;
}

async function exportDataset(d: Dataset, format: string, out: string, model: string | undefined, io: CliIo): Promise<void> {
  const config = loadConfig(io.env);
  const files =
    format === 'llmeval'
      ? toLlmevalSuite(d, model ?? config.judge?.model ?? 'gpt-4o-mini', reviewedChecks(d, (name) => loadRegistry(config.checkDefinitionsFile ?? undefined).get(name) !== undefined))
      : [{ path: `${d.name}.jsonl`, text: toJsonl(d) }];
  for (const f of files) {
    const path = join(out, f.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, f.text);
  }
  io.stderr.write(`wrote ${d.items.length} units of ${d.name}@${d.version} to ${files.map((f) => join(out, f.path)).join(', ')}\n`);
}

async function runVerb(source: DatasetSource, verb: string, ref: string, values: Record<string, string | boolean | undefined>, io: CliIo, project: string): Promise<number> {
  if (verb === 'list') {
    for (const d of await source.list()) io.stdout.write(`${d.name}@${d.version}  ${d.units} units  ${new Date(d.created_at_ms).toISOString()}  ${d.source}\n`);
    return 0;
  }
  const d = await source.get(ref);
  if (!d) {
    io.stderr.write(`tracecheck datasets: no dataset "${ref}" in project "${project}"\n`);
    return 1;
  }
  if (verb === 'show') {
    io.stdout.write(`${JSON.stringify(d, null, 2)}\n`);
    return 0;
  }
  await exportDataset(d, values.format as string, values.out as string, values.model as string | undefined, io);
  return 0;
}

/** `NAME` or `NAME@VERSION` as the API's path and query. */
export function datasetPath(ref: string): string {
  const m = /^(.+?)(?:@(\d+))?$/.exec(ref);
  return `/api/v1/datasets/${encodeURIComponent(m?.[1] ?? ref)}${m?.[2] !== undefined ? `?version=${m[2]}` : ''}`;
}

export const datasetsCommand: CliCommand = {
  name: 'datasets',
  summary: 'Datasets from production units: list, show, export to an llmeval suite or JSONL',
  usage: USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    const parsed = parseVerbArgs('datasets', argv, { project: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' }, model: { type: 'string' }, key: { type: 'string' } }, USAGE, io);
    if (typeof parsed === 'number') return parsed;
    const [verb = '', ref = ''] = parsed.positionals;
    const { format, out } = parsed.values;
    const named = parsed.values.project as string | undefined;
    if (!['list', 'show', 'export'].includes(verb) || (verb !== 'list' && !ref)) {
      io.stderr.write(`tracecheck datasets: give list, or show/export with a dataset name\n${USAGE}`);
      return 2;
    }
    if (verb === 'export' && (!out || (format !== 'llmeval' && format !== 'jsonl'))) {
      io.stderr.write('tracecheck datasets export: --format llmeval|jsonl and --out DIR are required\n');
      return 2;
    }
    return withStoreOrServer(
      'datasets',
      io,
      { key: apiKey(parsed.values, io), project: named },
      (store) => {
        const project = named ?? 'default';
        return runVerb({ list: () => listDatasets(store, project), get: (r) => getDataset(store, project, r) }, verb, ref, parsed.values, io, project);
      },
      async (api) => {
        const source: DatasetSource = {
          list: async () => (await api.call<{ datasets: Summary[] }>('GET', '/api/v1/datasets')).datasets,
          get: async (r) => {
            try {
              return await api.call<Dataset>('GET', datasetPath(r));
            } catch (err) {
              if (err instanceof ServerApiError && err.status === 404) return null;
              throw err;
            }
          },
        };
        return runVerb(source, verb, ref, parsed.values, io, named ?? "the key's");
      },
    );
  },
};
