import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseUnit, type Unit } from '../../contracts/schemas/index.ts';
import { decideRevisions, unitFingerprint } from './revisions.ts';

const known = (unit_id: string, revision: number, content_hash: string, project = 'default') => ({ unit_id, project, revision, content_hash });
const unit = (unit_id: string, content_hash: string, project = 'default') => ({ unit_id, project, content_hash });

describe('decideRevisions', () => {
  it('makes a new unit revision 1 and a changed one the next revision', () => {
    expect(decideRevisions([unit('a', 'h1'), unit('b', 'h9')], [known('b', 1, 'h1'), known('b', 2, 'h2')])).toEqual([
      { unit_id: 'a', project: 'default', revision: 1, fresh: true, latest: true },
      { unit_id: 'b', project: 'default', revision: 3, fresh: true, latest: true },
    ]);
  });

  it('keeps a stored content as its revision (a replay), and only the highest is the latest', () => {
    expect(decideRevisions([unit('b', 'h1'), unit('b', 'h2')], [known('b', 1, 'h1'), known('b', 2, 'h2')])).toEqual([
      { unit_id: 'b', project: 'default', revision: 1, fresh: false, latest: false },
      { unit_id: 'b', project: 'default', revision: 2, fresh: false, latest: true },
    ]);
  });

  it('decides latest after the whole batch', () => {
    expect(decideRevisions([unit('a', 'h1'), unit('a', 'h2'), unit('a', 'h1')], []).map((d) => ('revision' in d ? [d.revision, d.fresh, d.latest] : d))).toEqual([
      [1, true, false],
      [2, true, true],
      [1, false, false],
    ]);
  });

  it("refuses a unit id owned by another project, before or within the batch", () => {
    const [stored, inBatch] = [decideRevisions([unit('a', 'h2', 'bank')], [known('a', 1, 'h1', 'shop')]), decideRevisions([unit('a', 'h1', 'shop'), unit('a', 'h2', 'bank')], [])];
    expect(stored).toEqual([{ unit_id: 'a', project: 'bank', refused: 'unit a belongs to project "shop"; a change sent with a key of project "bank" is refused' }]);
    expect(inBatch[1]).toHaveProperty('refused');
    expect(inBatch[0]).toMatchObject({ revision: 1, latest: true });
  });
});

describe('unitFingerprint', () => {
  const base = { schema_version: 1, unit_id: 'u', kind: 'trace', trace_ids: ['u'], agent_name: null, agent_version: null, service: null, environment: null, conversation_id: null, model: null, model_input: [], model_output: 'hi', message_history: [{ role: 'assistant', content: 'hi' }], tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null, usage: { input_tokens: 1, output_tokens: 1 }, errors: [], truncated: false, span_count: 1, start_time_ms: 1, end_time_ms: 2, assembled_at_ms: 3 } satisfies Unit;

  it('ignores the assembly time and the order of keys, and sees every change of content', () => {
    const f = unitFingerprint(base);
    expect(unitFingerprint({ ...base, assembled_at_ms: 99 })).toEqual(f);
    const reordered: unknown = Object.fromEntries(Object.entries(base).reverse());
    expect(unitFingerprint(reordered as Unit)).toEqual(f);
    expect(unitFingerprint({ ...base, project: 'default' })).toEqual(f);
    const changed = unitFingerprint({ ...base, model_output: 'bye' });
    expect(changed.content_hash).not.toBe(f.content_hash);
    expect(changed.model_output_hash).not.toBe(f.model_output_hash);
    expect(changed.messages_hash).toBe(f.messages_hash);
    expect(unitFingerprint({ ...base, span_count: 2 }).content_hash).not.toBe(f.content_hash);
    expect(f.content_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives the hashes stored revisions were written with (a change would make every replay a new revision)', () => {
    expect(unitFingerprint(base)).toEqual({
      content_hash: '1de731cca13765d55682a4e1c7161dcff1af55af6ab4c75c1a5e0d29ac58fbc7',
      model_output_hash: 'b49177e05868b7af8e82a644c1ce20e521af46497adeaffe861d294d9b4bb75e',
      messages_hash: '41672b307e432263fb23c6c110a718254ef13534dcedf7e27c8c37365adaa127',
    });
  });

  it('gives the hashes main gave for a unit with steps, read back from the bus as the scorer reads it', () => {
    // A unit of the e2e bench (two model calls and a tool), as stored by main at 6fc5b7d: the hashes are its.
    const stored = parseUnit(readFileSync(join(import.meta.dirname, '../../../test/fixtures/units/bench-trace-with-steps.json'), 'utf8'));
    expect(stored.steps).toHaveLength(3);
    expect(unitFingerprint(stored)).toEqual({
      content_hash: 'e96044d43b3d7615b36b504308d0b92d5b46d32a9d3eacff1c404c5bc77f23b4',
      model_output_hash: '4f9d6783a26499cd5d94a5583fb749e72a413187f98f30a74070d72c16c610c7',
      messages_hash: 'b835cfd017330469ff520d08be3b10ad271f3463877050c455024378cd8eb2fc',
    });
    // Without a project (the default's), and attributes whose keys need sorting (integer keys first).
    expect(unitFingerprint({ ...stored, project: undefined, attributes: { z: '1', a: '2', 10: 'x' } }).content_hash).toBe('1e04fce76c5da0c595ab21425e405a42c253a515e1d726071f6fcc9c92be6152');
  });
});
