import { readFile } from 'node:fs/promises';
import { CheckStoreError, openUserChecks } from '../check-store/index.ts';
import type { CheckDefinition, CodeCheckDefinition, ModelCheckDefinition, OutputType } from '../../shared/engines/checks/index.ts';
import { catalogEntries, CheckDefinitionError, codeCheckArgs, codeCheckFromSdk, definitionVersion, generateCheckSource, generateCodeCheck, outputTypeOfCheckType, outputTypeOfDataType, outputTypeOfValue, parseTemplate, SAMPLE_INPUTS, templateWarnings, UNBOUNDED, verifyCodeCheck } from '../../shared/engines/checks/index.ts';
import { createCodeSandbox } from '../../shared/engines/code-sandbox/index.ts';
import { loadConfig } from '../../shared/runtime/config/index.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { createJudge, parseFlags } from '../check-runtime.ts';
import { TRY_USAGE, tryCommand } from './checks-try.ts';

/** The user's definitions file: --out / --definitions, else TRACECHECK_CHECK_DEFINITIONS. */
function definitionsFile(flags: Map<string, string | true>, io: CliIo): string | null {
  const flag = flags.get('out') ?? flags.get('definitions');
  if (typeof flag === 'string') return flag;
  return loadConfig(io.env).checkDefinitionsFile;
}

function list(flags: Map<string, string | true>, io: CliIo): number {
  let store: ReturnType<typeof openUserChecks>;
  try {
    store = openUserChecks(definitionsFile(flags, io));
  } catch (err) {
    return failed('list', err, io);
  }
  const rows = [
    ...catalogEntries.map((e) => ({
      name: e.definition.name,
      source: 'catalog',
      kind: e.definition.kind,
      method: e.method,
      output_type: e.definition.outputType,
      ...(e.definition.outputType === 'score' ? { range: e.definition.range ?? [0, 1] } : {}),
      ...(e.definition.threshold !== undefined ? { threshold: e.definition.threshold } : {}),
      inputs: e.inputs,
      version: definitionVersion(e.definition),
      versions: [definitionVersion(e.definition)],
      description: e.definition.description,
    })),
    ...store.userNames().map((name) => {
      const def = store.registry.definition(name)!;
      return {
        name,
        source: 'user',
        kind: def.kind,
        method: def.kind === 'model' ? 'model' : def.kind === 'code' ? `code (${def.language})` : 'deterministic',
        output_type: def.outputType,
        ...(def.outputType === 'score' ? { range: def.range ?? [0, 1] } : {}),
        ...(def.threshold !== undefined ? { threshold: def.threshold } : {}),
        inputs: def.kind === 'model' ? templateFieldsOf(def.promptTemplate) : [],
        version: definitionVersion(def),
        versions: store.registry.history(name).map((h) => h.check.version),
        description: def.description,
      };
    }),
  ];
  if (flags.get('json')) io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else for (const r of rows) io.stdout.write(`${r.name.padEnd(30)} ${r.source.padEnd(8)} ${r.method.padEnd(13)} ${r.output_type.padEnd(9)} v${r.version}${r.versions.length > 1 ? ` (${r.versions.length} versions)` : ''}  ${r.description}\n`);
  return 0;
}

function templateFieldsOf(template: string): string[] {
  return [...new Set(parseTemplate(template).parts.flatMap((p) => ('variable' in p ? [p.variable] : [])))];
}

/** --type as the SDK or the CLI spells it (SCORE, score, PASS_FAIL), or --output-data-type bool|int|float; null when neither is given. */
function typeFlag(flags: Map<string, string | true>): OutputType | null | { error: string } {
  const type = flags.get('type') ?? flags.get('output-type');
  if (typeof type === 'string') return outputTypeOfCheckType(type) ?? { error: '--type must be SCORE or PASS_FAIL (any case)' };
  const data = flags.get('output-data-type');
  if (typeof data === 'string') return outputTypeOfDataType(data) ?? { error: '--output-data-type must be bool, int or float' };
  return null;
}

function commonFields(flags: Map<string, string | true>): { name: string; outputType: OutputType; typeGiven: boolean; description: string; range?: readonly [number, number]; threshold?: number } | string {
  const name = flags.get('name');
  const given = typeFlag(flags);
  if (typeof name !== 'string') return '--name is required';
  if (given !== null && typeof given === 'object') return given.error;
  const outputType = given ?? 'pass_fail';
  const range = typeof flags.get('range') === 'string' ? (flags.get('range') as string).split(',').map(Number) : undefined;
  const threshold = typeof flags.get('threshold') === 'string' ? Number(flags.get('threshold')) : undefined;
  const description = flags.get('description');
  return {
    name,
    outputType,
    typeGiven: given !== null,
    description: typeof description === 'string' ? description : '',
    ...(range && range.length === 2 ? { range: [range[0], range[1]] as const } : {}),
    ...(threshold !== undefined ? { threshold } : {}),
  };
}

/** Saves into the definitions file (a new version when the definition changed) and prints the definition line. */
function save(def: CheckDefinition, flags: Map<string, string | true>, io: CliIo): void {
  const file = definitionsFile(flags, io);
  const { version, created, versions } = openUserChecks(file).save(def);
  io.stdout.write(`${JSON.stringify(def)}\n`);
  const where = file ? ` in ${file}` : ' (not saved: give --out FILE or set TRACECHECK_CHECK_DEFINITIONS)';
  io.stderr.write(`${created ? 'registered' : 'unchanged:'} ${def.name} version ${version}${versions > 1 ? ` (version ${versions} of this name)` : ''}${where}\n`);
  if (def.kind === 'model') for (const w of templateWarnings(def.promptTemplate)) io.stderr.write(`warning: ${w}\n`);
}

function failed(what: string, err: unknown, io: CliIo): number {
  if (err instanceof CheckDefinitionError || err instanceof CheckStoreError) {
    io.stderr.write(`tracecheck checks ${what}: ${err.message}\n`);
    return 1;
  }
  throw err;
}

async function create(flags: Map<string, string | true>, io: CliIo): Promise<number> {
  const common = commonFields(flags);
  const promptFile = flags.get('prompt-file');
  if (typeof common === 'string' || typeof promptFile !== 'string') {
    io.stderr.write(`tracecheck checks create: ${typeof common === 'string' ? common : '--prompt-file is required'}\n`);
    return 2;
  }
  const { typeGiven: _typeGiven, ...fields } = common;
  const def: ModelCheckDefinition = {
    kind: 'model',
    ...fields,
    // A judge's score check answers any number unless a range is given (Okareo's score checks have none).
    ...(common.outputType === 'score' && !common.range ? { range: UNBOUNDED } : {}),
    description: common.description || `model check from ${promptFile}`,
    promptTemplate: await readFile(promptFile, 'utf8'),
  };
  try {
    save(def, flags, io);
    return 0;
  } catch (err) {
    return failed('create', err, io);
  }
}

async function upload(flags: Map<string, string | true>, io: CliIo): Promise<number> {
  const common = commonFields(flags);
  const file = flags.get('file');
  if (typeof common === 'string' || typeof file !== 'string') {
    io.stderr.write(`tracecheck checks upload: ${typeof common === 'string' ? common : '--file is required'}\n`);
    return 2;
  }
  const language = /\.py$/.test(file) ? 'python' : /\.[cm]?js$/.test(file) ? 'javascript' : 'typescript';
  const timeout = flags.get('timeout-ms');
  const source = await readFile(file, 'utf8');
  const sandbox = createCodeSandbox(loadConfig(io.env).sandbox);
  try {
    // upload_check needs no type flag: without --type / --output-data-type, what evaluate returns on
    // the sample decides (a bool is pass/fail, an int or a float a score, unbounded unless --range).
    let outputType = common.outputType;
    if (!common.typeGiven) {
      const sample = await sandbox.evaluate({ source, language, args: codeCheckArgs(SAMPLE_INPUTS[0]) });
      outputType = (sample.ok ? outputTypeOfValue(sample.value) : null) ?? 'pass_fail';
    }
    const def: CodeCheckDefinition = {
      ...codeCheckFromSdk({
        name: common.name,
        description: common.description || `code check from ${file}`,
        source,
        language,
        outputType,
        requiresScenarioInput: flags.get('requires-scenario-input') === true,
        requiresScenarioResult: flags.get('requires-scenario-result') === true,
        ...(common.range ? { range: common.range } : {}),
        ...(common.threshold !== undefined ? { threshold: common.threshold } : {}),
      }),
      ...(typeof timeout === 'string' ? { timeoutMs: Number(timeout) } : {}),
    };
    save(await verifyCodeCheck(def, sandbox), flags, io);
    return 0;
  } catch (err) {
    return failed('upload', err, io);
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
  const sandbox = createCodeSandbox(loadConfig(io.env).sandbox);
  try {
    if (flags.get('language') !== 'typescript') {
      save(await generatePython(common, flags, judge, sandbox), flags, io);
      return 0;
    }
    const { typeGiven: _typeGiven, ...fields } = common;
    save(await generateCodeCheck({ ...fields, needsScenario: flags.get('needs-scenario') === true }, { judge, codeRunner: sandbox }), flags, io);
    return 0;
  } catch (err) {
    return failed('generate', err, io);
  } finally {
    await sandbox.close();
  }
}

/** generate_check as the SDK does it: a Python CodeBasedCheck, verified in the sandbox, then saved. */
async function generatePython(common: Exclude<ReturnType<typeof commonFields>, string>, flags: Map<string, string | true>, judge: NonNullable<ReturnType<typeof createJudge>>, sandbox: ReturnType<typeof createCodeSandbox>): Promise<CodeCheckDefinition> {
  const data = flags.get('output-data-type');
  const outputDataType = data === 'int' || data === 'float' ? data : common.outputType === 'score' ? 'float' : 'bool';
  const requiresScenarioInput = flags.get('requires-scenario-input') === true || flags.get('needs-scenario') === true;
  const requiresScenarioResult = flags.get('requires-scenario-result') === true || flags.get('needs-scenario') === true;
  const source = await generateCheckSource({ description: common.description, requiresScenarioInput, requiresScenarioResult, outputDataType, language: 'python' }, judge);
  const def = codeCheckFromSdk({
    name: common.name, description: common.description, source, language: 'python', outputType: outputDataType === 'bool' ? 'pass_fail' : 'score',
    requiresScenarioInput, requiresScenarioResult, ...(common.range ? { range: common.range } : {}), ...(common.threshold !== undefined ? { threshold: common.threshold } : {}),
  });
  return verifyCodeCheck(def, sandbox);
}

export const checksCommand: CliCommand = {
  name: 'checks',
  summary: 'list the catalog and your checks; create model checks; upload or generate code checks',
  usage: `usage:
  tracecheck checks list [--json] [--definitions defs.jsonl]
  tracecheck checks create --name NAME --prompt-file rubric.txt --type PASS_FAIL|SCORE [--description TEXT] [--range MIN,MAX] [--threshold X] [--out defs.jsonl]
  tracecheck checks upload --file check.py|check.ts|check.js --name NAME [--output-data-type bool|int|float | --type PASS_FAIL|SCORE] [--requires-scenario-input] [--requires-scenario-result] [--range MIN,MAX] [--threshold X] [--timeout-ms MS] [--description TEXT] [--out defs.jsonl]
  tracecheck checks generate --name NAME --description TEXT [--output-data-type bool|int|float | --type PASS_FAIL|SCORE] [--requires-scenario-input] [--requires-scenario-result] [--language python|typescript] [--range MIN,MAX] [--out defs.jsonl]
${TRY_USAGE}

Your checks live in a JSON Lines file: --out / --definitions, else TRACECHECK_CHECK_DEFINITIONS (what
the services and \`tracecheck score --definitions\` read). Saving a name again with another definition
adds a new version; list shows the versions.

create registers a model check: the prompt file is the judge's rubric with template variables
({model_output} or {output}, {scenario_input} or {input}, {scenario_result} or {result},
{message_history}, {tool_calls}, {tools}, …; an unknown {name} is refused, naming it). upload
verifies a code check in the sandbox on a sample unit: a Python file as Okareo documents it
(class Check(CodeBasedCheck) with evaluate(model_output, scenario_input, scenario_result)), or a
TypeScript/JavaScript module exporting evaluate(args); without a type flag what it returns
decides (bool: pass/fail; int, float: a score, unbounded unless --range), within --timeout-ms per unit (default 2000,
at most 10000) and the sandbox's memory limit (TRACECHECK_SANDBOX_MEMORY_MB). generate asks the configured model to write
one (a Python CodeBasedCheck as the SDK's generate_check does; --language typescript for ours) and
verifies it the same way before saving it. --type accepts any case (SCORE, score, PASS_FAIL).

try re-runs a new version of a check, not saved, over the units people reviewed for it (read from
the configured store, project --project, default "default") and prints the agreement with people of
the current and the new version side by side (agreement, 95% Wilson interval, Cohen's kappa) and
the units where they differ; the try is recorded for a monitor's min_agreement. The new version is
a JSON file in the shape POST /api/v1/checks takes, a stored version's id, or --prompt-file: the
current model check with a new rubric. Judge calls go to the configured judge.`,
  async run(argv, io) {
    const [sub, ...rest] = argv;
    const flags = parseFlags(rest);
    if (sub === 'list') return list(flags, io);
    if (sub === 'create') return create(flags, io);
    if (sub === 'upload') return upload(flags, io);
    if (sub === 'generate') return generate(flags, io);
    if (sub === 'try') return tryCommand(flags, io);
    io.stderr.write(`${this.usage}\n`);
    return 2;
  },
};
