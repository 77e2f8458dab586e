import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe("each project's share of the open traces (TRACECHECK_PROJECT_*)", () => {
  it('defaults to half the hold on reading, and is read from the environment', () => {
    expect(loadConfig({}).projectShares).toEqual({
      maxOpenTraces: 5_000,
      maxRootlessTraces: 2_500,
      maxOpenBytes: 128 * 1024 * 1024,
      scorerReadAhead: { units: 20_000, bytes: 128 * 1024 * 1024 },
    });
    expect(
      loadConfig({
        TRACECHECK_PROJECT_MAX_OPEN_TRACES: '300',
        TRACECHECK_PROJECT_MAX_ROOTLESS_TRACES: '200',
        TRACECHECK_PROJECT_MAX_OPEN_BYTES: '1048576',
        TRACECHECK_SCORER_READ_AHEAD_UNITS: '5000',
        TRACECHECK_SCORER_READ_AHEAD_BYTES: '2097152',
      }).projectShares,
    ).toEqual({ maxOpenTraces: 300, maxRootlessTraces: 200, maxOpenBytes: 1_048_576, scorerReadAhead: { units: 5_000, bytes: 2_097_152 } });
  });

  it('refuses a share that is not a positive whole number, naming the variable', () => {
    expect(() => loadConfig({ TRACECHECK_PROJECT_MAX_ROOTLESS_TRACES: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRACECHECK_PROJECT_MAX_ROOTLESS_TRACES: 'lots' })).toThrow(/TRACECHECK_PROJECT_MAX_ROOTLESS_TRACES/);
  });
});
