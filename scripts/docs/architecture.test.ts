import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { topicsFor } from '../../shared/adapters/bus/index.ts';
import { TOPOLOGY, type StageFlow } from '../../cli/topology.ts';
import { BEGIN, END, renderArchitecture, withArchitecture } from './architecture.ts';

const names = topicsFor('t');

describe('renderArchitecture', () => {
  it('draws one aligned row per stage, then the dead-letter topic of every topic read', () => {
    const topology: StageFlow[] = [
      { stage: 'collector', service: 'collector', in: ['otlp'], out: ['spans'], lookups: ['store'] },
      { stage: 'scorer', service: 'scorer', in: ['spans', 'units'], out: ['store', 'scores'] },
      { stage: 'sweep', service: 'scorer', in: ['store'], out: ['units'], onlyWith: 'duckdb' },
    ];
    expect(renderArchitecture(topology, names).split('\n')).toEqual([
      'process    reads                                 stage                   writes',
      'collector  agents: OTLP/HTTP, gRPC (+ store) ──▶ collector           ──▶ t.spans',
      'scorer     t.spans, t.units                  ──▶ scorer              ──▶ store, t.scores',
      'scorer     store                             ──▶ sweep (DuckDB only) ──▶ t.units',
      '',
      'process: `tracecheck <process>` runs its stages alone; `tracecheck up` runs them all in one',
      'topics: Kafka, or the in-process bus with its log on disk; store: ClickHouse, or DuckDB',
      '(+ store): a lookup in the store, when the process has one',
      'dead letters: t.spans.dlq (scorer)',
      '              t.units.dlq (scorer)',
    ]);
  });
});

describe('withArchitecture', () => {
  it('replaces what stands between the markers, and nothing else', () => {
    const doc = `# x\n${BEGIN}\nold picture\n${END}\nafter\n`;
    expect(withArchitecture(doc, 'a ──▶ b')).toBe(`# x\n${BEGIN}\n\`\`\`text\na ──▶ b\n\`\`\`\n${END}\nafter\n`);
    expect(withArchitecture(withArchitecture(doc, 'p'), 'p')).toBe(withArchitecture(doc, 'p'));
  });

  it('refuses a document without the markers', () => {
    expect(() => withArchitecture('# x\n', 'p')).toThrow(/architecture markers are missing/);
  });
});

describe("the README's architecture picture", () => {
  it('is the one rendered from cli/topology.ts (npm run docs:architecture rewrites it)', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    expect(readme).toBe(withArchitecture(readme, renderArchitecture(TOPOLOGY, topicsFor('tracecheck'))));
  });
});
