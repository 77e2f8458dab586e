/** Every combination of the sweep's values over the base parameters, in a stable order. */
export function expandSweep(base: Record<string, unknown>, sweep: Record<string, readonly unknown[]>): Array<Record<string, unknown>> {
  let out: Array<Record<string, unknown>> = [{ ...base }];
  for (const [key, values] of Object.entries(sweep)) {
    out = out.flatMap((params) => values.map((v) => ({ ...params, [key]: v })));
  }
  return out;
}
