import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCheckRegistry } from '../../shared/engines/checks/index.ts';
import { DEFAULT_DEMO_ROWS, demoEnv, demoScoreRows, runCommand } from '../helpers/cli.ts';

// bin/tracecheck.mjs runs the build (dist/): scripts/test.sh builds before the integration tests.
const runCli = (args: string[], env: Record<string, string>, timeoutMs: number) => runCommand(process.execPath, ['bin/tracecheck.mjs', ...args], { env, timeoutMs });

// The README's first line, as a user runs it (ports 0 so that it cannot collide with anything).
describe('tracecheck up --demo', () => {
  it('prints the demo\'s scores from the embedded mode', async () => {
    const { code, stdout, stderr } = await runCli(['up', '--demo', '--exit-after-demo'], demoEnv(mkdtempSync(join(tmpdir(), 'tracecheck-cli-'))), 90_000);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('tracecheck is up (in-process bus + DuckDB)');
    // Every address on its own line, the dashboard first, all on the API's port but OTLP.
    const api = /^ {2}API {16}(http:\/\/127\.0\.0\.1:\d+)\/api\/v1\/scores$/m.exec(stdout)?.[1];
    expect(api, stdout).toBeDefined();
    expect(stdout).toContain(`\n  dashboard          ${api}/\n  send OTLP/HTTP to  http://127.0.0.1:`);
    expect(stdout).toContain(`  alert rules        ${api}/api/v1/alert-rules   (evaluated every 60000 ms)`);
    expect(demoScoreRows(stdout)).toEqual(DEFAULT_DEMO_ROWS);
  });

  it('with TRACECHECK_CHECKS=all waits for every check of the catalog, not for one named "all"', async () => {
    const env = { ...demoEnv(mkdtempSync(join(tmpdir(), 'tracecheck-cli-'))), TRACECHECK_CHECKS: 'all' };
    const { code, stdout, stderr } = await runCli(['up', '--demo', '--exit-after-demo'], env, 90_000);
    expect(code, stderr).toBe(0);
    const catalog = createCheckRegistry().list().map((c) => c.name).sort();
    expect(catalog).toHaveLength(44);
    const rows = demoScoreRows(stdout);
    for (const scenario of ['healthy', 'toolFails', 'loops']) {
      expect(rows.filter((r) => r[0] === scenario).map((r) => r[1]).sort()).toEqual(catalog);
    }
  });

  it('stops at start-up with every configuration problem listed', async () => {
    const { code, stderr } = await runCli(['up'], { TRACECHECK_API_PORT: 'eighty', TRACECHECK_CLICKHOUSE_URL: 'nope' }, 30_000);
    expect(code).toBe(2);
    expect(stderr).toContain('TRACECHECK_API_PORT');
    expect(stderr).toContain('TRACECHECK_CLICKHOUSE_URL');
  });
});
