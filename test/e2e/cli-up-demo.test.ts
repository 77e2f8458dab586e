import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function runCli(args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/tracecheck.mjs', ...args], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tracecheck ${args.join(' ')} did not exit within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

// The README's first line, as a user runs it (ports 0 so that it cannot collide with anything).
describe('tracecheck up --demo', () => {
  it('prints the demo\'s scores from the embedded mode', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tracecheck-cli-'));
    const { code, stdout, stderr } = await runCli(['up', '--demo', '--exit-after-demo'], {
      TRACECHECK_DATA_DIR: dataDir,
      TRACECHECK_OTLP_HTTP_PORT: '0',
      TRACECHECK_OTLP_GRPC_PORT: '0',
      TRACECHECK_API_PORT: '0',
      TRACECHECK_TRACE_GRACE_MS: '500',
    }, 90_000);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('tracecheck is up (in-process bus + DuckDB)');
    const rows = stdout
      .split('\n')
      .filter((l) => /^(healthy|toolFails|loops)\s/.test(l))
      .map((l) => l.split(/\s{2,}/).slice(0, 5));
    expect(rows.map(([scenario, , check, result, value]) => [scenario, check, result, value])).toEqual([
      ['healthy', 'function_result_present', 'PASS', '1'],
      ['healthy', 'task_completed', 'PASS', '1'],
      ['toolFails', 'function_result_present', 'FAIL', '0'],
      ['toolFails', 'task_completed', 'FAIL', '0'],
      ['loops', 'function_result_present', 'PASS', '1'],
      ['loops', 'task_completed', 'FAIL', '0'],
    ]);
  });

  it('stops at start-up with every configuration problem listed', async () => {
    const { code, stderr } = await runCli(['up'], { TRACECHECK_API_PORT: 'eighty', TRACECHECK_CLICKHOUSE_URL: 'nope' }, 30_000);
    expect(code).toBe(2);
    expect(stderr).toContain('TRACECHECK_API_PORT');
    expect(stderr).toContain('TRACECHECK_CLICKHOUSE_URL');
  });
});
