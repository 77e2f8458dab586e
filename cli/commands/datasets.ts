import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliCommand, CliIo } from '../command.ts';
import { parseVerbArgs, withStore } from '../store-command.ts';
import { getDataset, listDatasets, toJsonl, toLlmevalTests } from '../../shared/engines/review/index.ts';

const USAGE = `usage: tracecheck datasets list [--project P]
       tracecheck datasets show NAME[@VERSION] [--project P]
       tracecheck datasets export NAME[@VERSION] --format llmeval|jsonl --out DIR [--project P]

Datasets are immutable, versioned snapshots of stored units (POST /api/v1/datasets: by unit ids, by
query, or the units a review queue marked wrong), read from the store (ClickHouse, or the embedded
DuckDB file). "export --format llmeval" writes DIR/tests/NAME.yaml (references with input and
expected) for a prompt file's "defaults:" to pull in; "--format jsonl" writes DIR/NAME.jsonl.
The project defaults to "default".
`;

export const datasetsCommand: CliCommand = {
  name: 'datasets',
  summary: 'Datasets from production units: list, show, export to llmeval tests or JSONL',
  usage: USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    const parsed = parseVerbArgs('datasets', argv, { project: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' } }, USAGE, io);
    if (typeof parsed === 'number') return parsed;
    const [verb = '', ref = ''] = parsed.positionals;
    const format = parsed.values.format as string | undefined;
    const out = parsed.values.out as string | undefined;
    const project = (parsed.values.project as string | undefined) ?? 'default';
    if (!['list', 'show', 'export'].includes(verb) || (verb !== 'list' && !ref)) {
      io.stderr.write(`tracecheck datasets: give list, or show/export with a dataset name\n${USAGE}`);
      return 2;
    }
    if (verb === 'export' && (!out || (format !== 'llmeval' && format !== 'jsonl'))) {
      io.stderr.write('tracecheck datasets export: --format llmeval|jsonl and --out DIR are required\n');
      return 2;
    }
    return withStore('datasets', io, async (store) => {
      if (verb === 'list') {
        for (const d of await listDatasets(store, project)) io.stdout.write(`${d.name}@${d.version}  ${d.units} units  ${new Date(d.created_at_ms).toISOString()}  ${d.source}\n`);
        return 0;
      }
      const d = await getDataset(store, project, ref);
      if (!d) {
        io.stderr.write(`tracecheck datasets: no dataset "${ref}" in project "${project}"\n`);
        return 1;
      }
      if (verb === 'show') {
        io.stdout.write(`${JSON.stringify(d, null, 2)}\n`);
        return 0;
      }
      const path = format === 'llmeval' ? join(out!, 'tests', `${d.name}.yaml`) : join(out!, `${d.name}.jsonl`);
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, format === 'llmeval' ? toLlmevalTests(d) : toJsonl(d));
      io.stderr.write(`wrote ${d.items.length} units of ${d.name}@${d.version} to ${path}\n`);
      return 0;
    });
  },
};
