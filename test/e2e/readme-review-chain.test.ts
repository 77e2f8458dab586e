import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbStore } from '../../shared/adapters/store/index.ts';
import { createSilentLogger } from '../../shared/runtime/logging/index.ts';
import { createModelServer, type ModelServer } from '../../tools/model-server/src/index.ts';
import { runCommand, type CliRun } from '../helpers/cli.ts';
import { embeddedPorts, startEmbeddedUp, type EmbeddedUp } from '../helpers/embedded-up.ts';
import { makeScore, makeUnit } from '../integration/store/store-fixtures.ts';

// The README's "Review and datasets" chain, run line by line with bash as a user pastes it, while
// `tracecheck up` (dist/: `npm run build` first) holds the DuckDB file: queue, review, agreement,
// dataset, export to an llmeval suite, `tracecheck eval` on it, `checks try`. Only the API's port
// is the test's own. Then, with the server stopped, the same export read from the store directly
// writes the same files.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'bin', 'tracecheck.mjs');

/** The first ```sh block after a heading. */
function shellBlock(file: string, heading: string): string[] {
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  const m = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  if (at < 0 || !m) throw new Error(`no sh block under "${heading}" in ${file}`);
  return m[1].split('\n').filter((l) => l.trim() !== '');
}

/** The heredoc that writes fixed.json in docs/review-and-datasets.md. */
function fixedJsonHeredoc(): string {
  const m = /cat > fixed\.json <<'JSON'\n[\s\S]*?\nJSON\n/.exec(readFileSync(join(ROOT, 'docs', 'review-and-datasets.md'), 'utf8'));
  if (!m) throw new Error('no fixed.json heredoc in docs/review-and-datasets.md');
  return m[0];
}

interface LineRun {
  line: string;
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `lines` in one bash, each line's exit code and output kept apart; `npx tracecheck` is this checkout's bin. */
async function runLines(lines: readonly string[], cwd: string, env: Record<string, string>): Promise<LineRun[]> {
  const out = join(cwd, '.lines');
  const script = [
    `mkdir -p ${out}`,
    `npx() { if [ "$1" = tracecheck ]; then shift; node ${JSON.stringify(BIN)} "$@"; else command npx "$@"; fi; }`,
    ...lines.map((l, i) => (l.trimStart().startsWith('#') ? '' : `{ ${l}\n} >${out}/${i}.out 2>${out}/${i}.err; echo $? >${out}/${i}.code`)),
  ].join('\n');
  const run: CliRun = await runCommand('bash', ['-c', script], { cwd, env, timeoutMs: 240_000 });
  expect(run.code, run.stderr).toBe(0);
  return lines.flatMap((line, i) => {
    if (line.trimStart().startsWith('#')) return [];
    const read = (ext: string): string => readFileSync(join(out, `${i}.${ext}`), 'utf8');
    return [{ line, code: Number(read('code').trim()), stdout: read('out'), stderr: read('err') }];
  });
}

describe("the README's review chain, while tracecheck up runs", () => {
  const work = mkdtempSync(join(tmpdir(), 'tracecheck-readme-chain-'));
  const dataDir = join(work, 'data');
  const unit = makeUnit({ project: 'shop', agent_version: 'v2', unit_id: 'u-readme-chain-1' });
  let model: ModelServer;
  let up: EmbeddedUp;
  let env: Record<string, string>;
  let key = '';

  beforeAll(async () => {
    // The failing unit an alert would name, stored before the server takes the file.
    const store = createDuckDbStore({ path: join(dataDir, 'tracecheck.duckdb'), log: createSilentLogger() });
    await store.start();
    const now = Date.now();
    await store.writeUnits([unit]);
    await store.writeScores([makeScore({ project: 'shop', unit_id: unit.unit_id, check: 'task_completed', check_version: 'j1', passed: false, value: 0, agent_version: 'v2', unit_end_time_ms: now - 60_000, created_at_ms: now - 30_000 })]);
    await store.shutdown();
    model = createModelServer({ host: '127.0.0.1', port: 0, log: createSilentLogger() });
    await model.start();
    const judge = { OPENAI_BASE_URL: `${model.url()}/v1`, TRACECHECK_JUDGE_MODEL: 'mock-judge' };
    up = await startEmbeddedUp(dataDir, await embeddedPorts(), { ...judge, TRACECHECK_CHECKS: 'task_completed' });
    env = { TRACECHECK_DATA_DIR: dataDir, ...judge };
  }, 180_000);

  afterAll(async () => {
    await up?.stop();
    await model?.shutdown();
  });

  it('runs every line: queue, review, agreement, dataset, the exported suite in eval, checks try', async () => {
    // The admin key of `shop`, made while the server holds the store (the first key: the API is open).
    const created = await runCommand(process.execPath, [BIN, 'keys', 'create', '--project', 'shop', '--role', 'admin'], { env, timeoutMs: 60_000 });
    expect(created.stderr).toMatch(/^created admin key [0-9a-f]{12} for project "shop"; it is shown only this once\n$/);
    expect(created.code).toBe(0);
    key = created.stdout.trim();
    expect(key).toMatch(/^tc_admin_/);

    writeFileSync(join(work, 'fixed.sh'), fixedJsonHeredoc());
    expect((await runCommand('bash', ['fixed.sh'], { cwd: work, timeoutMs: 10_000 })).code).toBe(0);

    const lines = shellBlock(join(ROOT, 'README.md'), '## Review and datasets');
    expect(lines[0]).toMatch(/^API=http:\/\/127\.0\.0\.1:8080\/api\/v1; /);
    const runnable = [lines[0].replace('http://127.0.0.1:8080', up.apiUrl), ...lines.slice(1)];
    const runs = await runLines(runnable, work, { ...env, KEY: key });
    const by = (start: string): LineRun => {
      const r = runs.find((x) => x.line.trimStart().startsWith(start) || x.line.includes(start));
      if (!r) throw new Error(`no line with ${start}`);
      return r;
    };
    for (const r of runs) expect({ line: r.line, code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toMatchObject({ line: r.line, code: 0 });

    const review = JSON.parse(by('-X POST $API/reviews').stdout) as Record<string, unknown>;
    expect(review).toMatchObject({ unit_id: unit.unit_id, check: 'task_completed', agrees: false, project: 'shop' });
    const agreement = JSON.parse(by('/agreement').stdout) as { reviews: number; binary: { agreement: { successes: number; total: number } } };
    expect(agreement).toMatchObject({ reviews: 1, binary: { agreement: { successes: 0, total: 1 } } });
    const dataset = JSON.parse(by('-X POST $API/datasets').stdout) as Record<string, unknown>;
    expect(dataset).toMatchObject({ name: 'v2-wrong', version: 1, units: 1 });

    const exported = by('datasets export');
    expect(exported.stderr).toBe('wrote 1 units of v2-wrong@1 to suite/llmeval.yaml, suite/prompts/v2-wrong.yaml, suite/tests/v2-wrong.yaml\n');
    expect(readFileSync(join(work, 'suite', 'prompts', 'v2-wrong.yaml'), 'utf8')).toContain('model: mock-judge\nprompt: "{question}"\ndefaults:\n  - ../tests/v2-wrong\nmetrics:\n  - task_completed\n');
    expect(readFileSync(join(work, 'suite', 'tests', 'v2-wrong.yaml'), 'utf8')).toContain(`- id: ${unit.unit_id}\n`);

    const evalRun = by('tracecheck eval');
    // The model server echoes the question; its judge finds the task completed.
    expect(evalRun.stdout).toMatch(/^mock-judge {10}u-readme-chain-1 .* You said: Where is my order #42\? +1 pass +PASS \(1\/1\)$/m);
    expect(evalRun.stdout).toMatch(/^PASSED: 1 passed, 0 failed, 0 skipped of 1 references \(run \d{8}-\d{6}-[0-9a-f]{6}\)$/m);

    const tried = by('checks try').stdout.split('\n');
    expect(tried.slice(0, 3)).toEqual([
      'task_completed: 1 reviewed units, 1 reviews (project shop)',
      "version                agreement          95% Wilson        Cohen's kappa",
      'current (as reviewed)        0/1    0.0%  0.0% – 79.3%      0.000',
    ]);
    expect(tried[3]).toMatch(/^new [0-9a-f]{16} {9}1\/1 {2}100\.0% {2}20\.7% – 100\.0% {4}–$/);
    expect(tried.slice(4, 6)).toEqual(['differ on 1 of 1 units', '  u-readme-chain-1  people: pass  current: fail  new: pass  No tool errors and no repeated turns in the data; the task looks completed.']);
  }, 300_000);

  it('writes the same suite and key list from the store once the server is stopped; a backfill runs in the server with an admin key, and a key-less call says it needs one', async () => {
    const viaServer = await runCommand(process.execPath, [BIN, 'datasets', 'export', 'v2-wrong', '--project', 'shop', '--format', 'llmeval', '--out', 'one/'], { cwd: work, env: { ...env, TRACECHECK_API_KEY: '' }, timeoutMs: 60_000 });
    expect(viaServer).toEqual({
      code: 1,
      stdout: '',
      stderr: `tracecheck datasets: tracecheck up runs (${up.apiUrl}) and its API has keys: give an admin key of the project with --key KEY or TRACECHECK_API_KEY\n`,
    });
    const keyless = await runCommand(process.execPath, [BIN, 'backfill', '--check', 'task_completed'], { cwd: work, env, timeoutMs: 60_000 });
    expect(keyless).toEqual({ code: 1, stdout: '', stderr: `tracecheck backfill: tracecheck up runs (${up.apiUrl}) and its API has keys: give an admin key of the project with --key KEY or TRACECHECK_API_KEY\n` });
    // Through the running server, with the key: shop's one unit re-scored by the server's judge.
    const backfill = await runCommand(process.execPath, [BIN, 'backfill', '--check', 'task_completed', '--project', 'shop', '--key', key], { cwd: work, env, timeoutMs: 60_000 });
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(JSON.parse(backfill.stdout)).toMatchObject({ check: 'task_completed', finished: true, done: 1, total: 1, scored: 1, skipped: 0 });
    expect(backfill.stderr.trim().split('\n').at(-1)).toBe('backfill [##############################] 1/1 units (1 scored, 0 not matched)');
    const rescored = (await (await fetch(`${up.apiUrl}/api/v1/units/${unit.unit_id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { scores: Array<{ check: string; check_version: string; passed: boolean | null }> };
    expect(rescored.scores.filter((sc) => sc.check === 'task_completed' && sc.check_version !== 'j1').map((sc) => sc.passed)).toEqual([true]);
    const keysVia = await runCommand(process.execPath, [BIN, 'keys', 'list'], { env: { ...env, TRACECHECK_API_KEY: key }, timeoutMs: 60_000 });
    await up.stop();
    expect(existsSync(join(dataDir, 'server.json'))).toBe(false);
    // The same lines from the store itself: the one key, of shop, made through the API.
    const keysDirect = await runCommand(process.execPath, [BIN, 'keys', 'list'], { env, timeoutMs: 60_000 });
    expect(keysVia).toEqual({ ...keysDirect, code: 0 });
    expect(keysDirect.stdout).toMatch(/^[0-9a-f]{12} {2}admin {3}shop {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}\n$/);
    const direct = await runCommand(process.execPath, [BIN, 'datasets', 'export', 'v2-wrong', '--project', 'shop', '--format', 'llmeval', '--out', 'two/'], { cwd: work, env, timeoutMs: 60_000 });
    expect(direct).toEqual({ code: 0, stdout: '', stderr: 'wrote 1 units of v2-wrong@1 to two/llmeval.yaml, two/prompts/v2-wrong.yaml, two/tests/v2-wrong.yaml\n' });
    for (const f of ['llmeval.yaml', 'prompts/v2-wrong.yaml', 'tests/v2-wrong.yaml']) {
      expect(readFileSync(join(work, 'two', f), 'utf8'), f).toBe(readFileSync(join(work, 'suite', f), 'utf8'));
    }
  }, 120_000);
});
