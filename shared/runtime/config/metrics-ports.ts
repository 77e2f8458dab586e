/**
 * Metrics ports of the services that serve /metrics on a server of their own, by default: one each,
 * so that the assembler, the scorer and the alerter started side by side on one host (as the README
 * shows) never bind the same port. Fixed rather than ephemeral ports, so that Prometheus can be
 * pointed at them.
 */
export const DEFAULT_METRICS_PORTS = { assembler: 9464, scorer: 9465, alerter: 9466 } as const;

/**
 * The metrics port of a process running `services`: TRACECHECK_METRICS_PORT when set, else the
 * default of the first of them in pipeline order (assembler, scorer, alerter).
 */
export function metricsPortFor(configured: number | null, services: ReadonlySet<string>): number {
  if (configured !== null) return configured;
  for (const [service, port] of Object.entries(DEFAULT_METRICS_PORTS)) if (services.has(service)) return port;
  return DEFAULT_METRICS_PORTS.assembler;
}
