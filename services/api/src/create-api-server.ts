import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { listenError } from '../../../shared/runtime/errors/index.ts';
import { createComponent, type Component } from '../../../shared/runtime/lifecycle/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import type { Store } from '../../../shared/adapters/store/index.ts';
import type { Keyring } from '../../../shared/kit/access/index.ts';
import { createApp, type ApiSecurity } from './create-app.ts';
import type { PrepareBackfill } from './backfill-routes.ts';
import type { CheckRegistry, CodeRunner, JudgeClient } from '../../../shared/engines/checks/index.ts';
import type { CheckCatalog } from './pages/index.ts';
import type { Metrics } from '../../../shared/kit/metrics/index.ts';

export interface ApiServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  store: Store;
  log: Logger;
  keyring?: Keyring;
  createRegistry?: () => CheckRegistry;
  checks?: CheckCatalog;
  metrics?: Metrics;
  security?: Partial<ApiSecurity>;
  judge?: JudgeClient | null;
  codeRunner?: CodeRunner;
  retention?: { days: number | null; allowLonger: boolean };
  prepareBackfill?: PrepareBackfill;
}

export function createApiServer(options: ApiServerOptions): Component & { url(): string } {
  let server: ServerType | null = null;
  let url = '';
  const component = createComponent('api', {
    start: () =>
      new Promise<void>((resolve, reject) => {
        const app = createApp({
          store: options.store,
          log: options.log,
          ...(options.keyring ? { keyring: options.keyring } : {}),
          ...(options.createRegistry ? { createRegistry: options.createRegistry } : {}),
          ...(options.checks ? { checks: options.checks } : {}),
          ...(options.metrics ? { metrics: options.metrics } : {}),
          ...(options.security ? { security: options.security } : {}),
          ...(options.judge ? { judge: options.judge } : {}),
          ...(options.codeRunner ? { codeRunner: options.codeRunner } : {}),
          ...(options.retention ? { retention: options.retention } : {}),
          ...(options.prepareBackfill ? { prepareBackfill: options.prepareBackfill } : {}),
        });
        server = serve({ fetch: app.fetch, hostname: options.host, port: options.port }, (info: AddressInfo) => {
          url = `http://${options.host}:${info.port}`;
          options.log.info({ url }, 'api listening');
          resolve();
        });
        server.once('error', (err: Error) => reject(listenError(err, options.host, options.port)));
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        // Keep-alive connections would hold close() open until they time out.
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  });
  return { ...component, url: () => url };
}
