import { appendFile, readFile } from 'node:fs/promises';
import type { CheckDefinition, CodeCheckDefinition, OutputType } from '../../shared/checks/index.ts';
import { catalogEntries, CheckDefinitionError, definitionVersion, generateCodeCheck, verifyCodeCheck } from '../../shared/checks/index.ts';
import { createCodeSandbox } from '../../shared/code-sandbox/index.ts';
import { loadConfig } from '../../shared/config/index.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { createJudge, parseFlags } from '../check-runtime.ts';

function list(flags: Map<string, string | true>, io: CliIo): number {
  const rows = catalogEntries.map((e) => ({
    name: e.definition.name,
    kind: e.definition.kind,
    method: e.method,
    output_type: e.definition.outputType,
    ...(e.definition.outputType === 'score' ? { range: e.definition.range ?? [0, 1] } : {}),
    ...(e.definition.threshold !== undefined ? { threshold: e.definition.threshold } : {}),
    inputs: e.inputs,
    version: definitionVersion(e.definition),
    description: e.definition.description,
  }));
  if (flags.get('json')) io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else for (const r of rows) io.stdout.write(`${r.name.padEnd(30)} ${r.method.padEnd(13)} ${r.output_type.padEnd(9)} ${r.description}\n`);
  return 0;
}

function commonFields(flags: Map<string, string | true>): { name: string; outputType: OutputType; description: string; range?: readonly [number, number]; threshold?: number } | string {
  const name = flags.get('name');
  const outputType = flags.get('output-type') ?? 'pass_fail';
  if (typeof name !== 'string') return '--name is required';
  if (outputType !== 'pass_fail' && outputType !== 'score') return '--output-type must be pass_fail or score';
  const range = typeof flags.get('range') === 'string' ? (flags.get('range') as string).split(',').map(Number) : undefined;
  const threshold = typeof flags.get('threshold') === 'string' ? Number(flags.get('threshold')) : undefined;
  const description = flags.get('description');
  return {
    name,
    outputType,
    description: typeof description === 'string' ? description : '',
    ...(range && range.length === 2 ? { range: [range[0], range[1]] as const } : {}),
    ...(threshold !== undefined ? { threshold } : {}),
  };
}

async function emit(def: CheckDefinition, flags: Map<string, string | true>, io: CliIo): Promise<void> {
  const line = JSON.stringify(def);
  const out = flags.get('out');
  if (typeof out === 'string') await appendFile(out, `${line}\n`);
  io.stdout.write(`${line}\n`);
  io.stderr.write(`registered ${def.name} version ${definitionVersion(def)}${typeof out === 'string' ? ` in ${out}` : ''}\n`);
}

async function upload(flags: Map<string, string | true>, io: CliIo): Promise<number> {
  const common = commonFields(flags);
  const file = flags.get('file');
  if (typeof common === 'string' || typeof file !== 'string') {
    io.stderr.write(`tracecheck checks upload: ${typeof common === 'string' ? common : '--file is required'}\n`);
    return 2;
  }
  const def: CodeCheckDefinition = { kind: 'code', ...common, description: common.description || `code check from ${file}`, source: await readFile(file, 'utf8'), language: /\.[cm]?js$/.test(file) ? 'javascript' : 'typescript' };
  const sandbox = createCodeSandbox();
  try {
    await emit(await verifyCodeCheck(def, sandbox), flags, io);
    return 0;
  } catch (err) {
    io.stderr.write(`tracecheck checks upload: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof CheckDefinitionError ? 1 : 2;
  } finally {
    await sandbox.close();
  }
}

async function generate(flags: Map<string, string | true>, io: CliIo): Promise<number> {
  const common = commonFields(flags);
  if (typeof common === 'string' || !common.description) {
    io.stderr.write(`tracecheck checks generate: ${typeof common === 'string' ? common : '--description is required'}\n`);
    return 2;
  }
  const judge = createJudge(loadConfig(io.env));
  if (!judge) {
    io.stderr.write('tracecheck checks generate: needs a model: set OPENAI_BASE_URL (or OPENAI_API_KEY) and TRACECHECK_JUDGE_MODEL\n');
    return 2;
  }
  const sandbox = createCodeSandbox();
  try {
    await emit(await generateCodeCheck({ ...common, needsScenario: flags.get('needs-scenario') === true }, { judge, codeRunner: sandbox }), flags, io);
    return 0;
  } catch (err) {
    io.stderr.write(`tracecheck checks generate: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await sandbox.close();
  }
}

export const checksCommand: CliCommand = {
  name: 'checks',
  summary: 'list the check catalog; upload or generate code checks',
  usage: `usage:
  tracecheck checks list [--json]
  tracecheck checks upload --file check.ts --name NAME [--output-type pass_fail|score] [--range MIN,MAX] [--threshold X] [--description TEXT] [--out defs.jsonl]
  tracecheck checks generate --name NAME --description TEXT [--output-type pass_fail|score] [--range MIN,MAX] [--needs-scenario] [--out defs.jsonl]

upload compiles the module (TypeScript or JavaScript exporting evaluate(args)), runs it in the sandbox
on sample units and checks the declared return type; generate asks the configured model to write one
and verifies it the same way. Both print the definition as one JSON line (and append it to --out),
ready for \`tracecheck score --definitions defs.jsonl\`.`,
  async run(argv, io) {
    const [sub, ...rest] = argv;
    const flags = parseFlags(rest);
    if (sub === 'list') return list(flags, io);
    if (sub === 'upload') return upload(flags, io);
    if (sub === 'generate') return generate(flags, io);
    io.stderr.write(`${this.usage}\n`);
    return 2;
  },
};
