import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Store } from '../shared/adapters/store/index.ts';
import type { Logger } from '../shared/runtime/logging/index.ts';
import { createCommandLogger } from './command-logger.ts';
import type { CliIo } from './command.ts';
import { createStore } from './compose.ts';
import { loadConfigOrReport } from './load-config-or-exit.ts';
import { ServerApiError, findRunningServer, serverApi, type ServerApi } from './running-server.ts';

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
async function withStore(name: string, io: CliIo, work: (store: Store, log: Logger) => Promise<number>): Promise<number> {
  const config = loadConfigOrReport(io);
  if (!config) return 2;
  // A command's output is the point: the store's info lines would only bury it.
  const log = createCommandLogger(config, 'warn');
  const store = createStore(config, log);
  try {
    await store.start();
    return await work(store, log);
  } catch (err) {
    io.stderr.write(`tracecheck ${name}: ${storeFailure(err, config.clickhouse === null)}\n`);
    return 1;
  } finally {
    await store.shutdown();
  }
}

/** DuckDB's lock error names no cause a user would know: another process (a `tracecheck up`) holds the file. */
export function storeFailure(err: unknown, embedded: boolean): string {
  const message = err instanceof Error ? err.message : String(err);
  if (!embedded || !/could not set lock/i.test(message)) return message;
  return `${message}\nanother process holds the DuckDB file: a running tracecheck up started before this version? Stop it (Ctrl-C) and start it again; commands then go through its API while it runs`;
}

/** The API key a command sends to a running server: --key, else TRACECHECK_API_KEY. */
export function apiKey(values: Record<string, unknown>, io: CliIo): string | undefined {
  const key = typeof values.key === 'string' ? values.key : io.env.TRACECHECK_API_KEY;
  return key === '' ? undefined : key;
}

/**
 * Runs `viaServer` through the API of the `tracecheck up` holding the embedded DuckDB file when one
 * runs, else `viaStore` on the store itself; either way a failure is one line on stderr, exit 1.
 */
export async function withStoreOrServer(
  name: string,
  io: CliIo,
  access: { key: string | undefined; project: string | undefined },
  viaStore: (store: Store, log: Logger) => Promise<number>,
  viaServer: (api: ServerApi) => Promise<number>,
): Promise<number> {
  const config = loadConfigOrReport(io);
  if (!config) return 2;
  const server = findRunningServer(config);
  if (!server) return withStore(name, io, viaStore);
  try {
    return await viaServer(serverApi(server, access.key, access.project));
  } catch (err) {
    if (!(err instanceof ServerApiError)) throw err;
    io.stderr.write(`tracecheck ${name}: ${err.message}\n`);
    return 1;
  }
}
