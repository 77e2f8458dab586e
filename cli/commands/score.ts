import type { CheckInput } from '../../shared/engines/checks/index.ts';
import { parseEvalRecord, recordToCheckInput, runCheck, unitToCheckInput } from '../../shared/engines/checks/index.ts';
import { loadConfig } from '../../shared/runtime/config/index.ts';
import { forEachLimited } from '../../shared/runtime/flow/index.ts';
import { UnitSchema } from '../../shared/contracts/schemas/index.ts';
import type { CliCommand } from '../command.ts';
import { contextFor, loadRegistry, parseFlags, readAll, selectChecks } from '../check-runtime.ts';
import { CheckStoreError } from '../check-store/index.ts';

function toInput(line: string): { ok: true; input: CheckInput } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  if (value && typeof value === 'object' && 'unit_id' in value && 'schema_version' in value) {
    const unit = UnitSchema.safeParse(value);
    if (!unit.success) return { ok: false, error: `not a unit: ${unit.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).slice(0, 3).join('; ')}` };
    return { ok: true, input: unitToCheckInput(unit.data) };
  }
  const record = parseEvalRecord(value);
  return record.ok ? { ok: true, input: recordToCheckInput(record.record) } : record;
}

export const scoreCommand: CliCommand = {
  name: 'score',
  summary: 'score JSON Lines of units or eval records from stdin with checks',
  usage: `usage: tracecheck score --checks a,b,c [--definitions defs.jsonl] [--concurrency N] < records.jsonl

Reads JSON Lines on stdin: canonical units (UnitSchema) or eval records
{id, messages, tools?, scenario_input?, scenario_result?, simulation_messages?}.
Writes one JSON line per (record, check) to stdout:
  {"id", "check", "value", "passed", "method", "explanation", "error"}

  --checks        comma list of check names, or "all", or "deterministic" (every check decided in code)
  --definitions   JSON Lines of extra check definitions (model or code checks) to register first
  --concurrency   records scored at once (default: TRACECHECK_JUDGE_CONCURRENCY)

Model checks need a judge: OPENAI_BASE_URL (or OPENAI_API_KEY) and TRACECHECK_JUDGE_MODEL.
Without one they answer status not_run, reported in "error". The exit code is 1 when a line could
not be read or a check errored.`,
  async run(argv, io) {
    const flags = parseFlags(argv);
    const spec = flags.get('checks');
    if (typeof spec !== 'string') {
      io.stderr.write('tracecheck score: --checks is required\n');
      return 2;
    }
    const config = loadConfig(io.env);
    const defs = flags.get('definitions');
    let registry;
    try {
      registry = loadRegistry(typeof defs === 'string' ? defs : undefined);
    } catch (err) {
      if (!(err instanceof CheckStoreError)) throw err;
      io.stderr.write(`tracecheck score: ${err.message}\n`);
      return 2;
    }
    const { checks, unknown } = selectChecks(registry, spec);
    if (unknown.length > 0) {
      io.stderr.write(`tracecheck score: unknown checks: ${unknown.join(', ')} (see \`tracecheck checks list\`)\n`);
      return 2;
    }
    const lines = (await readAll(io.stdin)).split('\n').filter((l) => l.trim() !== '');
    let failed = false;
    const inputs: CheckInput[] = [];
    lines.forEach((line, i) => {
      const parsed = toInput(line);
      if (parsed.ok) inputs.push(parsed.input);
      else {
        failed = true;
        io.stderr.write(`tracecheck score: line ${i + 1}: ${parsed.error}\n`);
      }
    });
    const { ctx: base, sandbox } = contextFor(config, checks.some((c) => c.usesCodeRunner === true));
    const ctx = { ...base, batch: inputs };
    const concurrencyFlag = Number(flags.get('concurrency'));
    const concurrency = Number.isInteger(concurrencyFlag) && concurrencyFlag > 0 ? concurrencyFlag : config.judgeOps.concurrency;
    const results: Promise<string>[] = [];
    const scoreOne = async (input: CheckInput): Promise<string> => {
      const rows: string[] = [];
      for (const check of checks) {
        const o = await runCheck(check, input, ctx);
        if (o.status === 'error') failed = true;
        rows.push(
          JSON.stringify({
            id: input.id,
            check: check.name,
            value: o.status === 'ok' ? o.value : null,
            passed: o.status === 'ok' ? o.passed : null,
            method: o.method,
            explanation: o.explanation ?? '',
            error: o.status === 'ok' ? null : o.status === 'not_run' ? `not_run: ${o.error}` : o.error,
          }),
        );
      }
      return rows.join('\n');
    };
    // Records run `concurrency` at a time; output keeps input order.
    const settled: (string | undefined)[] = [];
    await forEachLimited(inputs, concurrency, async (input, i) => {
      settled[i] = await scoreOne(input);
    });
    for (const s of settled) if (s) results.push(Promise.resolve(s));
    for (const r of results) io.stdout.write(`${await r}\n`);
    await sandbox?.close();
    return failed ? 1 : 0;
  },
};
