import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Store } from '../shared/adapters/store/index.ts';
import type { Logger } from '../shared/runtime/logging/index.ts';
import { createCommandLogger } from './command-logger.ts';
import type { CliIo } from './command.ts';
import { createStore } from './compose.ts';
import { loadConfigOrReport } from './load-config-or-exit.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * A `tracecheck <name> VERB …` command's arguments: the parsed values and positionals, or the exit
 * code when there is nothing to run (usage asked for: 0; a bad flag or no verb: 2, usage on stderr).
 */
export function parseVerbArgs(name: string, argv: string[], options: Options, usage: string, io: CliIo): { values: Record<string, string | boolean | undefined>; positionals: string[] } | number {
  let parsed: { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean' } }, allowPositionals: true });
  } catch (err) {
    io.stderr.write(`tracecheck ${name}: ${err instanceof Error ? err.message : String(err)}\n${usage}`);
    return 2;
  }
  if (parsed.values.help || parsed.positionals.length === 0) {
    (parsed.values.help ? io.stdout : io.stderr).write(usage);
    return parsed.values.help ? 0 : 2;
  }
  return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals };
}

/**
 * Runs `work` against the configured store (ClickHouse, or the embedded DuckDB file), started and
 * always shut down; a failure is one line on stderr and exit code 1.
 */
export async function withStore(name: string, io: CliIo, work: (store: Store, log: Logger) => Promise<number>): Promise<number> {
  const config = loadConfigOrReport(io);
  if (!config) return 2;
  const log = createCommandLogger(config, 'info');
  const store = createStore(config, log);
  try {
    await store.start();
    return await work(store, log);
  } catch (err) {
    io.stderr.write(`tracecheck ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await store.shutdown();
  }
}
