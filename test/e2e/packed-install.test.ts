import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DEMO_ROWS, demoEnv, demoScoreRows, runCommand } from '../helpers/cli.ts';

// What a user gets from `npm pack`: the tarball (built by `prepack`) installed with --omit=dev into
// an empty directory, so no TypeScript loader, no sources and no dev dependency is there to lean on.
const root = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'tracecheck-pack-'));
const app = join(work, 'app');
const npm = (args: string[], cwd: string) => runCommand('npm', [...args, '--no-audit', '--no-fund'], { cwd, timeoutMs: 180_000 });
const npx = (args: string[], env: Record<string, string> = {}) => runCommand('npx', ['--no-install', 'tracecheck', ...args], { cwd: app, env, timeoutMs: 90_000 });
let tarball = '';

beforeAll(async () => {
  const packed = await npm(['pack', '--pack-destination', work], root);
  expect(packed.code, packed.stderr).toBe(0);
  tarball = join(work, readdirSync(work).find((f) => f.endsWith('.tgz')) ?? 'no tarball');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name": "app", "private": true}\n');
  const installed = await npm(['install', '--omit=dev', '--prefer-offline', tarball], app);
  expect(installed.code, installed.stderr).toBe(0);
}, 400_000);

describe('the packed package, installed with --omit=dev', () => {
  it('holds the build and the command, not the sources or the tests', async () => {
    const { stdout } = await runCommand('tar', ['-tzf', tarball], { timeoutMs: 10_000 });
    const files = stdout.split('\n').filter(Boolean);
    expect(files).toContain('package/dist/cli/main.js');
    expect(files).toContain('package/dist/services/collector/src/generated/otlp.js');
    expect(files).toContain('package/bin/tracecheck.mjs');
    expect(files.filter((f) => f.endsWith('.ts') || f.startsWith('package/test/') || f.startsWith('package/bin/tracecheck-dev'))).toEqual([]);
    expect(readdirSync(join(app, 'node_modules'))).not.toContain('tsx');
  });

  it('answers --help', async () => {
    const { code, stdout } = await npx(['--help']);
    expect(code).toBe(0);
    expect(stdout.split('\n').slice(0, 4)).toEqual(['tracecheck: scores the live traces of AI agents', '', 'usage: tracecheck <command> [options]', '']);
    const commands = stdout.split('\n').filter((l) => /^ {2}\S/.test(l)).map((l) => l.trim().split(/\s+/)[0]);
    expect(commands).toEqual(['up', 'collector', 'assembler', 'scorer', 'api', 'alerter', 'keys', 'score', 'checks', 'backfill', 'eval', 'datasets', 'compare', 'model-server', 'demo']);
  });

  it('runs `up --demo` and prints the demo scores', async () => {
    const { code, stdout, stderr } = await npx(['up', '--demo', '--exit-after-demo'], demoEnv(join(work, 'data')));
    expect(code, stderr).toBe(0);
    expect(demoScoreRows(stdout)).toEqual(DEFAULT_DEMO_ROWS);
  });

  it('finds its run-time files: Pyodide (compile() for Python), the TypeScript parser', async () => {
    const records = join(work, 'records.jsonl');
    const code = (lang: string, text: string) => ({ role: 'assistant', content: `\`\`\`${lang}\n${text}\n\`\`\`` });
    writeFileSync(records, [
      { id: 'py', messages: [{ role: 'user', content: 'code' }, code('python', 'import os\nprint(os.getcwd())')] },
      { id: 'ts', messages: [{ role: 'user', content: 'code' }, code('typescript', 'const x: number = ;')] },
    ].map((r) => JSON.stringify(r)).join('\n'));
    const { code: exit, stdout } = await runCommand('sh', ['-c', `npx --no-install tracecheck score --checks code_blocks_compile < "${records}"`], { cwd: app, timeoutMs: 60_000 });
    expect(exit).toBe(0);
    expect(stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; passed: boolean; explanation: string }).map((s) => [s.id, s.passed, s.explanation])).toEqual([
      ['py', true, '1 code block(s) compile (python)'],
      ['ts', false, 'does not compile: block 1 (typescript): line 1: Expression expected.'],
    ]);
  });
});
