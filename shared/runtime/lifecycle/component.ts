import type { FatalError } from '../errors/index.ts';
import type { Logger } from '../logging/index.ts';
import { untilFatal } from './fatal.ts';

/** Something with a lifecycle. `shutdown()` is idempotent, safe before `start()`, and flushes. */
export interface Component {
  readonly name: string;
  start(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Wraps start/stop functions so that shutdown runs once and only after a start. */
export function createComponent(name: string, hooks: { start?: () => Promise<void>; stop?: () => Promise<void> }): Component {
  let started = false;
  let stopping: Promise<void> | null = null;
  return {
    name,
    async start() {
      await hooks.start?.();
      started = true;
    },
    shutdown() {
      if (!stopping) stopping = started && hooks.stop ? hooks.stop() : Promise.resolve();
      return stopping;
    },
  };
}

/**
 * Starts components in order and stops them in reverse. If a start fails, the ones already
 * started are stopped before the error is rethrown.
 */
export async function startAll(components: readonly Component[], log: Logger): Promise<() => Promise<void>> {
  const started: Component[] = [];
  const stopAll = async (): Promise<void> => {
    for (const c of [...started].reverse()) {
      try {
        log.debug({ component: c.name }, 'stopping');
        await c.shutdown();
        log.debug({ component: c.name }, 'stopped');
      } catch (err) {
        log.error({ err, component: c.name }, 'shutdown failed');
      }
    }
  };
  for (const c of components) {
    try {
      await c.start();
      started.push(c);
      log.debug({ component: c.name }, 'started');
    } catch (err) {
      await stopAll();
      throw err;
    }
  }
  return stopAll;
}

/** Resolves with the first SIGINT or SIGTERM. */
export function waitForShutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/**
 * Runs components until SIGINT/SIGTERM or a FatalError reported (fatal.ts), then stops them in
 * reverse order. Resolves that FatalError, 'stopped', or 'timed-out' when stopping took longer than `shutdownTimeoutMs`: the caller then exits anyway
 * (what was unfinished is uncommitted and read again, as after a crash).
 */
export async function runService(components: readonly Component[], log: Logger, options: { shutdownTimeoutMs?: number } = {}): Promise<'stopped' | 'timed-out' | FatalError> {
  const stopAll = await startAll(components, log);
  const failure = untilFatal();
  const stop = await Promise.race([waitForShutdownSignal(), failure.promise]);
  failure.cancel();
  if (typeof stop === 'string') log.info({ signal: stop }, 'shutting down');
  else log.error({ err: stop }, 'cannot go on; shutting down');
  const failed = typeof stop === 'string' ? null : stop;
  if (options.shutdownTimeoutMs === undefined) {
    await stopAll();
    return failed ?? 'stopped';
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed-out'>((resolve) => (timer = setTimeout(() => resolve('timed-out'), options.shutdownTimeoutMs)));
  const outcome = await Promise.race([stopAll().then(() => 'stopped' as const), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timed-out') log.error({ shutdownTimeoutMs: options.shutdownTimeoutMs }, 'shutdown did not finish in time; exiting: unfinished work stays uncommitted and is read again');
  return failed ?? outcome;
}
