import { metricsPortFor, type Config } from '../shared/runtime/config/index.ts';
import { PortInUseError, errorMessage } from '../shared/runtime/errors/index.ts';

/** The environment variable of each port a process running `services` listens on (as buildPipeline wires them). */
function portSettings(config: Config, services: ReadonlySet<string>): Map<number, string> {
  const out = new Map<number, string>();
  const add = (port: number, setting: string): void => {
    if (!out.has(port)) out.set(port, setting);
  };
  if (services.has('collector')) {
    add(config.ports.otlpHttp, 'TRACECHECK_OTLP_HTTP_PORT');
    add(config.ports.otlpGrpc, 'TRACECHECK_OTLP_GRPC_PORT');
  }
  if (services.has('api')) add(config.ports.api, 'TRACECHECK_API_PORT');
  // A process with neither the API nor the collector serves /metrics on a server of its own.
  if (!services.has('api') && !services.has('collector')) add(metricsPortFor(config.ports.metrics, services), 'TRACECHECK_METRICS_PORT');
  return out;
}

/** Why a process could not start, in one line; a taken port names the variable that moves it. */
export function startFailureMessage(err: unknown, config: Config, services: ReadonlySet<string>): string {
  if (err instanceof PortInUseError) {
    const setting = portSettings(config, services).get(err.port);
    return setting ? `${err.message}: set ${setting} to a free port` : err.message;
  }
  return errorMessage(err);
}
