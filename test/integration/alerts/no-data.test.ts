import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlerter } from '../../../services/alerter/src/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { AlertRuleSchema, createAlertRepository, type AlertPayload } from '../../../shared/engines/alerts/index.ts';
import { createAddressMatcher, parseAddressList } from '../../../shared/runtime/http/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createTestUnit } from '../../helpers/unit-factory.ts';

// Issue 26: a `no_data` rule fires once when an agent stops sending (no unit of it ended within
// the window: the agent is down or its exporter broke) and resolves once when it resumes, on the
// real DuckDB store, with units of another agent and another project arriving all along.

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
let hook: Server;
let hookUrl: string;
const bodies: AlertPayload[] = [];

beforeAll(async () => {
  await store.start();
  hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as AlertPayload);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await store.shutdown();
  await new Promise<void>((resolve) => hook.close(() => resolve()));
});

let n = 0;
/** One unit of `agent` in `project` that ended at `endMs`. */
async function unitOf(agent: string, endMs: number, project = 'shop'): Promise<void> {
  n++;
  await store.writeUnits([createTestUnit(n, { agent_name: agent, unit_id: `${agent}-${project}-${n}`, trace_ids: [`t${n}`], start_time_ms: endMs - 1_000, end_time_ms: endMs, project })]);
}

describe('no_data rule', () => {
  it('fires once when an agent goes silent for the window, resolves once when it sends again', async () => {
    await createAlertRepository(store).putRule(
      AlertRuleSchema.parse({ name: 'booking silent', kind: 'no_data', window: '10m', filters: { agent: 'booking', environment: 'prod' }, notify: [{ type: 'webhook', url: hookUrl }], id: 'nd', project: 'shop', created_at_ms: 1, updated_at_ms: 1 }),
    );
    const clock = { t: T0 };
    const alerter = createAlerter({ store, log, intervalMs: 60_000, now: () => clock.t, outbound: { allow: createAddressMatcher(parseAddressList('127.0.0.1').list) }, delivery: { initialDelayMs: 1, maxDelayMs: 5 } });
    const transitions: string[] = [];
    try {
      // Minute by minute: booking sends until minute 5, then nothing until minute 25; another agent,
      // and booking in another project, keep sending throughout.
      for (let minute = 0; minute < 30; minute++) {
        if (minute < 5 || minute >= 25) await unitOf('booking', clock.t - 1_000);
        await unitOf('search', clock.t - 1_000);
        await unitOf('booking', clock.t - 1_000, 'other-project');
        const r = await alerter.evaluateOnce();
        transitions.push(r.notifications.map((x) => x.transition).join(',') || '-');
        clock.t += MINUTE;
      }
      await alerter.idle();
    } finally {
      await alerter.shutdown();
    }
    // The last booking unit ended at minute 4 − 1 s: the 10-minute window is empty from minute 14 on.
    expect(transitions.map((t, minute) => (t === '-' ? '' : `${minute}:${t}`)).filter(Boolean)).toEqual(['14:fire', '25:resolve']);
    expect(bodies.map((b) => [b.state, b.kind, b.check, b.value, b.summary, b.units])).toEqual([
      ['firing', 'no_data', null, 0, 'no unit from agent=booking, environment=prod ended in the last 10m: the agent may be down or its exporter broken', []],
      ['resolved', 'no_data', null, 1, 'units from agent=booking, environment=prod arrive again (at least one in the last 10m)', []],
    ]);
  });
});
