import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDuckDbStore } from '../../shared/adapters/store/index.ts';
import { createSilentLogger } from '../../shared/runtime/logging/index.ts';
import { createApp } from '../../services/api/src/index.ts';

// Every page size docs/api.md states ("`limit` 1–1000, default 100", "at most `limit` groups
// (1–1000, default 100)") is the one the route's schema enforces, read from the OpenAPI document.

const API_MD = join(resolve(import.meta.dirname, '..', '..'), 'docs', 'api.md');

interface Param {
  name: string;
  in: string;
  schema?: { minimum?: number; maximum?: number; default?: number };
}

/** Each table row naming a limit: its first operation and the range as written. */
function documentedLimits(markdown: string): { op: string; min: number; max: number; default: number | null }[] {
  return markdown
    .split('\n')
    // Endpoint rows only: a parameter table's own `limit` row belongs to the endpoint above it.
    .filter((line) => /^\| `(GET|POST) /.test(line) && /`limit`/.test(line))
    .map((line) => {
      const op = /`(GET|POST) (\/api\/[^\s?`]+)/.exec(line);
      const range = /(\d[\d,]*)–(\d[\d,]*)(?:, default (\d[\d,]*))?/.exec(line.slice(line.indexOf('`limit`')));
      if (!op || !range) throw new Error(`docs/api.md: a row names \`limit\` without an operation or a range: ${line.slice(0, 120)}`);
      const n = (s: string): number => Number(s.replace(/,/g, ''));
      return { op: `${op[1]} ${op[2]}`, min: n(range[1]), max: n(range[2]), default: range[3] !== undefined ? n(range[3]) : null };
    });
}

describe('docs/api.md page limits', () => {
  it('states the limits the API enforces', async () => {
    const log = createSilentLogger();
    const store = createDuckDbStore({ path: ':memory:', log });
    const app = createApp({ store, log, now: Date.now });
    const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, { parameters?: Param[] }>> };
    await store.shutdown();
    const documented = documentedLimits(readFileSync(API_MD, 'utf8'));
    expect(documented.map((d) => d.op)).toEqual(['GET /api/v1/units', 'GET /api/v1/scores', 'GET /api/v1/metrics/summary', 'GET /api/v1/metrics/steps/summary']);
    const served = documented.map((d) => {
      const [method, path] = d.op.split(' ') as [string, string];
      const limit = doc.paths[path]?.[method.toLowerCase()]?.parameters?.find((p) => p.name === 'limit' && p.in === 'query');
      return { op: d.op, min: limit?.schema?.minimum, max: limit?.schema?.maximum, default: d.default === null ? null : limit?.schema?.default };
    });
    expect(documented).toEqual(served);
  });
});
