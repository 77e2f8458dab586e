import { defineConfig } from 'vitest/config';

// Two projects: `unit` (beside the code, no network) and `integration` (test/, real Kafka,
// ClickHouse, DuckDB and HTTP; the servers are started by scripts/infra.sh before vitest runs).
// scripts/test.sh runs integration files one at a time (--no-file-parallelism): they share two real
// servers on two cores, and bounded waits should measure our code, not contention between files.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['shared/**/*.test.ts', 'services/**/*.test.ts', 'tools/**/*.test.ts', 'cli/**/*.test.ts', 'scripts/**/*.test.ts'],
          environment: 'node',
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
