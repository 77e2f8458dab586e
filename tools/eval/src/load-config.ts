import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { expandGlob } from './glob.ts';
import type { Layered, Layers } from './layers.ts';
import { canonicalKey, composeFile, errorAt, isPlainObject, mappingOf, placeOf } from './layers.ts';
import { EvalConfigError } from './eval-error.ts';
import type { MainConfig } from './suite-types.ts';
import { readYamlFile } from './yaml-file.ts';

/** Keys of the main config; any other key given on the command line is a prompt parameter override. */
const MAIN_KEYS = new Set(['prompts', 'output', 'cache', 'n_tries', 'concurrency', 'timeout_ms', 'sweep', 'defaults', 'metrics_rollup', 'run_id', 'description', 'hydra', 'version']);

export interface LoadedConfig {
  config: MainConfig;
  /** Layers every prompt file starts from: the main config's `defaults`, `n_tries`, `sweep`, `metrics_rollup`. */
  promptBase: Layers;
  /** Command-line overrides that apply to every prompt (parameters, `n_tries`, …), applied last. */
  promptOverrides: Layers;
}

function placeText(l: Layered): string {
  const p = placeOf(l);
  return p.line ? `${p.file}:${p.line}` : p.file;
}

export function positiveInt(l: Layered, what: string): number {
  const v = l.value;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw errorAt(l, [], `${what} must be a whole number of at least 1, got ${JSON.stringify(v)}`);
  return v;
}

export function loadMainConfig(configPath: string, overrides: Record<string, unknown>): LoadedConfig {
  const path = resolve(configPath);
  if (!existsSync(path)) throw new EvalConfigError(`config file not found: ${configPath}`);
  const file = readYamlFile(path);
  const dir = dirname(path);
  const layers: Layers = new Map(Object.entries(mappingOf(file)).map(([k, v]) => [canonicalKey(k), { value: v, file, path: [k] }]));
  const promptBase: Layers = new Map();
  const promptOverrides: Layers = new Map();
  const notes: string[] = [];
  const cli = (key: string): Layered => ({ value: overrides[key], file: null, path: [key] });

  for (const [k, l] of layers) {
    if (!MAIN_KEYS.has(k)) throw errorAt(l, [], `unknown key "${k}" in the main config (known: ${[...MAIN_KEYS].join(', ')}); prompt settings go under "defaults"`);
  }
  const hydra = layers.get('hydra');
  // llmeval runs under Hydra; its `hydra:` section configures Hydra's launcher and sweeper, which we
  // replace: prompts are selected by `prompts`, variants by `sweep` and overrides.
  if (hydra) notes.push(`${placeText(hydra)}: the hydra: section is ignored (Hydra settings; prompts are chosen by "prompts", variants by "sweep" and key=value overrides)`);
  // Main-config `defaults` are prompt-level defaults: inline values or files composed like a prompt's.
  // Hydra's own defaults-list entries (llmeval's `- prompts: ???`, `- _self_`) select config groups,
  // which `prompts` does here: they are skipped, with a note.
  const listed: unknown = mappingOf(file).defaults;
  const isHydraEntry = (x: unknown): boolean => x === '_self_' || isPlainObject(x);
  const ownDefaults = Array.isArray(listed) ? listed.filter((x) => !isHydraEntry(x)) : listed;
  if (Array.isArray(listed) && ownDefaults !== listed && (ownDefaults as unknown[]).length < listed.length) {
    notes.push(`${placeText(layers.get('defaults')!)}: Hydra's defaults entries (${listed.filter(isHydraEntry).map((x) => (typeof x === 'string' ? x : Object.keys(x as object).join(', '))).join('; ')}) are ignored; prompts are chosen by "prompts" (default prompts/*.yaml)`);
  }
  if (layers.has('defaults') && !(Array.isArray(ownDefaults) && ownDefaults.length === 0)) for (const [k, l] of composeFile({ ...file, data: { defaults: ownDefaults } })) promptBase.set(k, l);
  for (const k of ['n_tries', 'sweep', 'metrics_rollup'] as const) {
    const l = layers.get(k);
    if (l) promptBase.set(k, l);
  }

  for (const [k] of Object.entries(overrides)) {
    if (k === 'prompts' || k === 'output' || k === 'cache' || k === 'concurrency' || k === 'timeout_ms' || k === 'run_id') continue;
    promptOverrides.set(k, cli(k));
  }

  const get = (k: string): Layered | undefined => (k in overrides ? cli(k) : layers.get(k));

  let promptFiles: string[] = [];
  let promptNames: string[] | null = null;
  const promptsLayer = layers.get('prompts');
  const patterns = (l: Layered | undefined): string[] => {
    // llmeval's layout keeps each prompt's references in prompts/tests/: those are not prompts.
    if (!l) return ['prompts/*.yaml', 'prompts/*.yml'];
    const v = l.value;
    const list = typeof v === 'string' ? [v] : v;
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) throw errorAt(l, [], 'prompts must be a path or glob, or a list of them');
    return list;
  };
  const fromOverride = overrides.prompts;
  const overrideLooksLikePath = typeof fromOverride === 'string' && /[/*?]|\.ya?ml$/.test(fromOverride);
  const globs = overrideLooksLikePath ? [fromOverride] : patterns(promptsLayer);
  for (const g of globs) promptFiles.push(...expandGlob(g, overrideLooksLikePath ? process.cwd() : dir));
  promptFiles = [...new Set(promptFiles)];
  if (fromOverride !== undefined && !overrideLooksLikePath) {
    const names = Array.isArray(fromOverride) ? fromOverride.map(String) : JSON.stringify(fromOverride).replace(/^"|"$/g, '').split(',');
    promptNames = names.map((s) => s.trim()).filter(Boolean);
  }
  if (promptFiles.length === 0) {
    const where = overrideLooksLikePath ? cli('prompts') : (promptsLayer ?? { value: undefined, file, path: [] });
    throw errorAt(where, [], `no prompt files match ${globs.join(', ')}`);
  }

  const str = (k: string, fallback: string): string => {
    const l = get(k);
    if (!l) return fallback;
    if (typeof l.value !== 'string' || l.value === '') throw errorAt(l, [], `${k} must be a non-empty path`);
    return l.value;
  };
  const int = (k: string, fallback: number): number => {
    const l = get(k);
    return l ? positiveInt(l, k) : fallback;
  };
  const outputDir = resolve(dir, str('output', '.tracecheck/runs'));
  let cacheDir: string | null = resolve(dir, '.tracecheck/cache');
  const cacheLayer = get('cache');
  if (cacheLayer) {
    const v = cacheLayer.value;
    if (v === false) cacheDir = null;
    else if (typeof v === 'string' && v !== '') cacheDir = resolve(cacheLayer.file ? dir : process.cwd(), v);
    else if (v !== true) throw errorAt(cacheLayer, [], 'cache must be true, false or a directory');
  }
  const runIdLayer = get('run_id');
  let runId: string | null = null;
  if (runIdLayer) {
    if (typeof runIdLayer.value !== 'string' && typeof runIdLayer.value !== 'number') throw errorAt(runIdLayer, [], 'run_id must be text');
    runId = String(runIdLayer.value);
    if (!/^[A-Za-z0-9_.-]+$/.test(runId) || runId.startsWith('.')) throw errorAt(runIdLayer, [], 'run_id may contain only letters, digits, "_", "-" and "."');
  }
  const raw = Object.fromEntries([...layers].map(([k, l]) => [k, l.value]));
  for (const [k, v] of Object.entries(overrides)) raw[k] = v;
  const sweepLayer = layers.get('sweep');
  if (sweepLayer && !isPlainObject(sweepLayer.value)) throw errorAt(sweepLayer, [], 'sweep must be a mapping of parameter names to lists of values');

  return {
    config: {
      file: file.display,
      dir,
      promptFiles,
      promptNames,
      outputDir,
      cacheDir,
      nTries: int('n_tries', 1),
      concurrency: int('concurrency', 4),
      timeoutMs: int('timeout_ms', 60_000),
      runId,
      raw,
      notes,
    },
    promptBase,
    promptOverrides,
  };
}

