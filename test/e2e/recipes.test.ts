import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelServer, type ModelServer } from '../../tools/model-server/src/index.ts';
import { createSilentLogger } from '../../shared/runtime/logging/index.ts';
import { embeddedPorts, startEmbeddedUp, type EmbeddedUp } from '../helpers/embedded-up.ts';
import { waitFor } from '../helpers/infra.ts';
import { report } from '../helpers/score-counts.ts';

// Issue 34, "recipes that work": each recipe under examples/ (docs/sending-traces.md) is run as a
// user runs it, `run.sh` with OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS and OPENAI_BASE_URL set, against
// `tracecheck up` (dist/) and the model server. Its run.sh installs the recipe's pinned packages in
// its own folder (fresh in CI), runs a tool-using agent and prints the trace id last; the unit of
// that trace must hold the whole dialog, exactly. tracecheck runs with API keys, and the recipes
// send theirs as the page says: OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <key>". Recipes run
// side by side (six at a time): installs wait on the package registries more than on the cores.

const ROOT = resolve(import.meta.dirname, '../..');
const RECIPE_TIMEOUT_MS = 12 * 60_000;
const PARALLEL = 6;
const run = promisify(execFile);

const SYSTEM = 'You are a helpful assistant. Use the tools.';
const QUESTION = 'What is the weather in Paris?';
const RESULT = 'sunny, 22 C';
const ANSWER = `Here is what I found: ${RESULT}.`;

/**
 * Recipes (`name`: the folder), the name a tool message carries where the library records it, and
 * a variant's own settings: `after` runs it once that recipe's run (and install) is done.
 */
const RECIPES: Array<{ label: string; name: string; toolMessageName?: string; env?: Record<string, string>; after?: string }> = [
  { label: 'node-openai', name: 'node-openai' },
  { label: 'node-vercel-ai', name: 'node-vercel-ai' },
  { label: 'node-langchain', name: 'node-langchain' },
  { label: 'python-openai', name: 'python-openai' },
  { label: 'python-langgraph', name: 'python-langgraph', toolMessageName: 'get_weather' },
  { label: 'python-openai-agents', name: 'python-openai-agents' },
  // The same agent with its content as log records only: the dialog comes through the logs exporter.
  { label: 'python-openai with EVENT_ONLY', name: 'python-openai', env: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'EVENT_ONLY' }, after: 'python-openai' },
];

/** The same agents with content capture off: their unit names the setting that turns it on, in the API and on its page. */
const CONTENT_OFF: Array<{ label: string; name: string; after: string; value: string; scope: string; fix: string }> = [
  {
    label: 'node-openai with content off',
    name: 'node-openai',
    after: 'node-openai',
    value: 'false',
    scope: '@opentelemetry/instrumentation-openai',
    fix: 'Set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (or pass `captureMessageContent: true` to `new OpenAIInstrumentation()`), and export logs as well as traces: this instrumentation sends the messages as log records, to /v1/logs.',
  },
  {
    label: 'python-openai with content off',
    name: 'python-openai',
    after: 'python-openai with EVENT_ONLY',
    value: 'NO_CONTENT',
    scope: 'opentelemetry.util.genai.handler',
    fix: 'Set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or SPAN_AND_EVENT). This version ignores the value true that older versions took, and captures no content with it.',
  },
];

interface RecipeRun {
  traceId: string;
  stdout: string;
  seconds: number;
}

/** `tracecheck keys create` on the data dir (before `up` holds it), as docs/security.md says. */
async function createKey(dataDir: string, role: 'ingest' | 'read'): Promise<string> {
  const { stdout } = await run(process.execPath, [join(ROOT, 'bin', 'tracecheck.mjs'), 'keys', 'create', '--project', 'recipes', '--role', role], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TRACECHECK_DATA_DIR: dataDir, TRACECHECK_LOG_LEVEL: 'warn' },
    timeout: 60_000,
  });
  const key = stdout.trim().split('\n')[0];
  if (!key.startsWith(`tc_${role}_`)) throw new Error(`keys create printed ${stdout}`);
  return key;
}

function runRecipe(name: string, env: Record<string, string>): Promise<RecipeRun> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn('bash', [join(ROOT, 'examples', name, 'run.sh')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RECIPE_TIMEOUT_MS);
    child.once('error', fail);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const traceId = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !/^[0-9a-f]{32}$/.test(traceId)) fail(new Error(`${name}/run.sh exited ${code ?? signal}; stdout:\n${stdout}\nstderr:\n${stderr.slice(-4_000)}`));
      else done({ traceId, stdout, seconds: Math.round((Date.now() - started) / 100) / 10 });
    });
  });
}

/** At most `n` at a time, in order. */
function limited(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const queue: Array<() => void> = [];
  return async (task) => {
    if (running >= n) await new Promise<void>((go) => queue.push(go));
    running += 1;
    try {
      return await task();
    } finally {
      running -= 1;
      queue.shift()?.();
    }
  };
}

interface UnitBody {
  unit: { messages: unknown[]; tool_calls: unknown[] };
}

describe('the recipes in examples/', () => {
  let modelServer: ModelServer;
  let up: EmbeddedUp;
  let dataDir: string;
  let readKey: string;
  const runs = new Map<string, Promise<RecipeRun>>();

  beforeAll(async () => {
    modelServer = createModelServer({ host: '127.0.0.1', port: 0, log: createSilentLogger() });
    await modelServer.start();
    dataDir = mkdtempSync(join(tmpdir(), 'tracecheck-recipes-'));
    const ingestKey = await createKey(dataDir, 'ingest');
    readKey = await createKey(dataDir, 'read');
    up = await startEmbeddedUp(dataDir, await embeddedPorts(), {});
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: up.collectorUrl, OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${ingestKey}`, OPENAI_BASE_URL: `${modelServer.url()}/v1` };
    const slot = limited(PARALLEL);
    const variants = [...RECIPES, ...CONTENT_OFF.map(({ label, name, after, value }) => ({ label, name, after, env: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value } }))];
    for (const { label, name, env: own, after } of variants) {
      const first = after ? runs.get(after)!.catch(() => undefined) : Promise.resolve();
      const recipe = first.then(() => slot(() => runRecipe(name, { ...env, ...own })));
      // Each test awaits its own run; a failure is reported there, not as an unhandled rejection.
      recipe.catch(() => undefined);
      runs.set(label, recipe);
    }
  });

  afterAll(async () => {
    await Promise.allSettled(runs.values());
    await up?.stop();
    await modelServer?.shutdown();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const seconds: Record<string, number> = {};
  afterAll(() => report('recipes: seconds per run.sh (install + run)', seconds));

  it.each(RECIPES)('$label: run.sh prints the trace id last, and its unit holds the dialog', { timeout: RECIPE_TIMEOUT_MS * 2 }, async ({ label, toolMessageName }) => {
    const done = await runs.get(label)!;
    seconds[label] = done.seconds;
    expect(done.stdout.trim().split('\n').slice(-2)).toEqual([ANSWER, done.traceId]);
    // The unit is stored once the trace is closed; log records may land just after its spans.
    const body = await waitFor(
      async () => {
        const res = await fetch(`${up.apiUrl}/api/v1/units/${done.traceId}`, { headers: { authorization: `Bearer ${readKey}` }, signal: AbortSignal.timeout(10_000) });
        if (res.status !== 200) return undefined;
        const b = (await res.json()) as UnitBody;
        return b.unit.messages.length >= 5 ? b : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: `the unit of ${label}'s trace with its dialog` },
    );
    const call = body.unit.tool_calls[0] as { id: string };
    expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(body.unit.messages).toEqual([
      { role: 'system', content: SYSTEM },
      { role: 'user', content: QUESTION },
      { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', content: RESULT, tool_call_id: call.id, ...(toolMessageName ? { name: toolMessageName } : {}) },
      { role: 'assistant', content: ANSWER },
    ]);
    expect(body.unit.tool_calls).toEqual([{ id: call.id, name: 'get_weather', arguments: '{"city":"Paris"}', result: RESULT, error: null }]);
  });

  it.each(CONTENT_OFF)('$label: the unit has no dialog and names the setting, in the API and on its page', { timeout: RECIPE_TIMEOUT_MS * 3 }, async ({ label, scope, fix }) => {
    const done = await runs.get(label)!;
    seconds[label] = done.seconds;
    const headers = { authorization: `Bearer ${readKey}` };
    const body = await waitFor(
      async () => {
        const res = await fetch(`${up.apiUrl}/api/v1/units/${done.traceId}`, { headers, signal: AbortSignal.timeout(10_000) });
        return res.status === 200 ? ((await res.json()) as { unit: { messages: unknown[]; diagnostics: Array<{ code: string; scope: string | null; fix: string }> } }) : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: `the unit of ${label}'s trace` },
    );
    const diagnostics = body.unit.diagnostics.map((d) => ({ code: d.code, scope: d.scope?.split(' ')[0] ?? null, fix: d.fix }));
    expect(diagnostics).toEqual([{ code: 'content_not_captured', scope, fix }]);
    const page = await (await fetch(`${up.apiUrl}/units/${done.traceId}`, { headers })).text();
    expect(page).toContain(`<span data-fix>${fix}</span>`);
  });
});
