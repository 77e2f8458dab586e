import { configDefaults, defineConfig } from 'vitest/config';

// Three projects, by what a test costs:
//   unit         *.test.ts beside the code (shared/ services/ tools/ cli/ scripts/): pure. No process,
//                worker thread, socket or disk write: scripts/test/pure-unit.ts makes each of those throw.
//   process      *.process.test.ts beside the code: the test needs the machine, not the servers. Child
//                processes and worker threads (the code sandboxes, Pyodide, CLI commands), the disk (the
//                durable bus's logs, spill files, temporary folders), and HTTP servers on 127.0.0.1.
//   integration  test/: real Kafka, ClickHouse, DuckDB and HTTP; the servers are started by
//                scripts/infra.sh before vitest runs.
// scripts/test.sh runs them in that order, and integration files one at a time (--no-file-parallelism):
// they share two real servers on two cores, and bounded waits should measure our code, not contention
// between files.
const BESIDE_THE_CODE = ['shared', 'services', 'tools', 'cli', 'scripts'];
const PROCESS_TESTS = '**/*.process.test.ts';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: BESIDE_THE_CODE.map((dir) => `${dir}/**/*.test.ts`),
          exclude: [...configDefaults.exclude, PROCESS_TESTS],
          setupFiles: ['scripts/test/pure-unit.ts'],
          environment: 'node',
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'process',
          include: BESIDE_THE_CODE.map((dir) => `${dir}/${PROCESS_TESTS}`),
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
