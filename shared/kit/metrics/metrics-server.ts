import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenError } from '../../runtime/errors/index.ts';
import { createComponent, type Component } from '../../runtime/lifecycle/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import { METRICS_CONTENT_TYPE, renderMetrics, type Metrics } from './metrics.ts';

/**
 * GET /metrics and GET /healthz for a process without an HTTP server of its own (assembler, scorer,
 * alerter alone). /healthz answers 200 with `health()` (e.g. consumer lag) while the process runs:
 * being behind is for operators to see, not a reason for a liveness probe to restart it.
 */
export function createMetricsServer(options: { host: string; port: number; metrics: Metrics; log: Logger; health?: () => object }): Component & { url(): string } {
  let server: Server | null = null;
  let url = '';
  const component = createComponent('metrics', {
    start: () =>
      new Promise<void>((resolve, reject) => {
        server = createServer((req, res) => {
          const path = (req.url ?? '').split('?', 1)[0];
          if (req.method === 'GET' && path === '/healthz') {
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(options.health ? options.health() : { status: 'ok' }));
            return;
          }
          if (req.method !== 'GET' || path !== '/metrics') {
            res.writeHead(404, { 'content-type': 'text/plain' }).end('GET /metrics, GET /healthz\n');
            return;
          }
          renderMetrics(options.metrics).then(
            (text) => res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(text),
            (err: unknown) => {
              options.log.error({ err }, 'rendering metrics failed');
              res.writeHead(500).end();
            },
          );
        });
        server.once('error', (err) => reject(listenError(err, options.host, options.port)));
        server.listen(options.port, options.host, () => {
          url = `http://${options.host}:${(server!.address() as AddressInfo).port}`;
          options.log.info({ url: `${url}/metrics` }, 'metrics listening');
          resolve();
        });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
  return { ...component, url: () => url };
}
