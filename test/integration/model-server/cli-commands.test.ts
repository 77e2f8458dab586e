import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../../helpers/cli.ts';
import { demoCommand } from '../../../cli/commands/demo.ts';

const io = (): ReturnType<typeof captureIo> => captureIo({ TRACECHECK_LOG_LEVEL: 'silent' });

let receiver: Server;
let receiverUrl: string;
let exports = 0;
beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('tracecheck demo', () => {
  it('runs the demo against its own model server and prints three trace ids', async () => {
    const cli = io();
    const code = await demoCommand.run(['--collector', receiverUrl], cli);
    expect(cli.err()).toBe('');
    expect(code).toBe(0);
    const ids = [...cli.out().matchAll(/^\s+(healthy|tool fails|loops)\s+([0-9a-f]{32})$/gm)].map((m) => m[1]);
    expect(ids).toEqual(['healthy', 'tool fails', 'loops']);
    expect(exports).toBeGreaterThan(0);
  });

  it('requires --collector and reports an unreachable collector with exit code 1', async () => {
    const missing = io();
    expect(await demoCommand.run([], missing)).toBe(2);
    expect(missing.err()).toMatch(/--collector is required/);
    const down = io();
    expect(await demoCommand.run(['--collector', 'http://127.0.0.1:9'], down)).toBe(1);
    expect(down.err()).toMatch(/^tracecheck demo: exporting the demo's spans to http:\/\/127\.0\.0\.1:9 failed/);
  });
});
