import { ConfigError, loadConfig, type Config } from '../shared/runtime/config/index.ts';
import type { CliIo } from './command.ts';

/** Parses the environment once; on a bad configuration prints every problem and returns null. */
export function loadConfigOrReport(io: CliIo, overrides: Record<string, string | undefined> = {}): Config | null {
  try {
    return loadConfig({ ...io.env, ...overrides });
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr.write(`tracecheck: ${err.message}\n`);
      return null;
    }
    throw err;
  }
}
