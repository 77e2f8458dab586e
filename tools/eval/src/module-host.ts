// Runs in a child process: imports the user's module and calls it once per message, so a crash,
// a hang or a polluted global in user code never reaches the runner.
import { pathToFileURL } from 'node:url';

interface HostRequest {
  modulePath: string;
  args: Record<string, unknown>;
}

type Entry = (args: Record<string, unknown>) => unknown;

function pickEntry(mod: Record<string, unknown>): Entry | null {
  for (const name of ['default', 'run', 'generate']) {
    const v = mod[name];
    if (typeof v === 'function') return v as Entry;
  }
  return null;
}

process.on('message', (raw: unknown) => {
  const req = raw as HostRequest;
  void (async () => {
    try {
      const mod = (await import(pathToFileURL(req.modulePath).href).catch((err: unknown) => {
        // Node 20 cannot load TypeScript by itself; a checkout has tsx, a production install not.
        if ((err as { code?: unknown }).code === 'ERR_UNKNOWN_FILE_EXTENSION' && /\.[cm]?ts$/.test(req.modulePath)) {
          throw new Error(`${req.modulePath}: a TypeScript module needs tsx installed (npm install tsx), or compile it to JavaScript`);
        }
        throw err;
      })) as Record<string, unknown>;
      const entry = pickEntry(mod);
      if (!entry) throw new Error('the module exports no function (export default, run or generate)');
      const result = await entry(req.args);
      process.send?.({ ok: true, result });
    } catch (err) {
      process.send?.({ ok: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
    }
  })();
});
