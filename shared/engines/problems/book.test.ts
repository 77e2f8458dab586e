import { describe, expect, it } from 'vitest';
import { createProblemBook } from './book.ts';
import { fnv1a } from './hash.ts';
import { HOUR_MS } from './problem.ts';
import { failed, failureUnit, passed, refOf } from './test-support.ts';
import type { FailureScore, FailureUnit } from './signature.ts';

type Item = [FailureUnit, FailureScore[]];

function outage(i: number, version = 'v1', at = i * 1000): Item {
  return [failureUnit(`out-${i}`, { agent_version: version, end_time_ms: at, tools: [['book', `HTTP 503 from host-${i}`]] }), [failed('task_completed', `Booking ${i} failed.`)]];
}
function refusal(i: number, version = 'v1', at = i * 1000): Item {
  return [failureUnit(`ref-${i}`, { agent_version: version, end_time_ms: at }), [failed('refusal', `The agent refused to help with order ${i}.`)]];
}
function healthy(i: number, version = 'v1', at = i * 1000): Item {
  return [failureUnit(`ok-${i}`, { agent_version: version, end_time_ms: at }), [passed('task_completed')]];
}

function feed(items: readonly Item[], book = createProblemBook()) {
  const events = items.flatMap(([u, s]) => book.observe(refOf(u), s, u).events);
  return { book, events };
}

describe('the problem book', () => {
  it('groups failures by signature and keeps counts, first and last seen, templates and a sample', () => {
    const items = [...Array.from({ length: 30 }, (_, i) => outage(i)), ...Array.from({ length: 10 }, (_, i) => refusal(100 + i)), ...Array.from({ length: 60 }, (_, i) => healthy(i))];
    const { book, events } = feed(items);
    const problems = book.list().sort((a, b) => b.count - a.count);
    expect(problems.map((p) => [p.title, p.count, p.first_seen_ms, p.last_seen_ms])).toEqual([
      ['support: book fails (unavailable)', 30, 0, 29_000],
      ['support: refusal:fail: The agent refused to help with order <num>', 10, 100_000, 109_000],
    ]);
    expect(problems[0].templates).toEqual([{ id: problems[0].templates[0].id, template: 'HTTP <num> from <id>', count: 30 }]);
    expect(problems[0].sample).toHaveLength(20);
    expect(problems[0].checks).toEqual({ 'task_completed:fail': 30 });
    expect(events.map((e) => e.kind)).toEqual(['problem_new', 'problem_new']);
    expect(book.versions()).toEqual({ 'support\u0000v1': { units: 100, first_seen_ms: 0, last_seen_ms: 109_000 } });
  });

  it('samples the 20 units with the smallest hash of their id, in that order', () => {
    const { book } = feed(Array.from({ length: 45 }, (_, i) => outage(i)));
    const expected = Array.from({ length: 45 }, (_, i) => `out-${i}`)
      .sort((a, b) => (fnv1a(a) < fnv1a(b) ? -1 : fnv1a(a) > fnv1a(b) ? 1 : a < b ? -1 : 1))
      .slice(0, 20);
    expect(book.list()[0].sample).toEqual(expected);
  });

  it('counts a replayed unit once', () => {
    const { book } = feed([outage(1), outage(1), outage(2)]);
    expect(book.list().map((p) => p.count)).toEqual([2]);
  });

  it('groups the same on a replay in another order: ids, counts, samples', () => {
    const items = [...Array.from({ length: 40 }, (_, i) => outage(i)), ...Array.from({ length: 25 }, (_, i) => refusal(i)), ...Array.from({ length: 40 }, (_, i) => healthy(i))];
    const shuffled = [...items].sort((a, b) => (a[0].unit_id.split('').reverse().join('') < b[0].unit_id.split('').reverse().join('') ? -1 : 1));
    const one = feed(items).book.list().map((p) => [p.id, p.count, p.sample, p.first_seen_ms, p.last_seen_ms]).sort();
    const two = feed(shuffled).book.list().map((p) => [p.id, p.count, p.sample, p.first_seen_ms, p.last_seen_ms]).sort();
    expect(two).toEqual(one);
    expect(one).toHaveLength(2);
  });

  it('resolves after a quiet period, reports a return as regressed, and each change once', () => {
    const book = createProblemBook({ resolveAfterMs: 10 * HOUR_MS, newForMs: HOUR_MS });
    feed([outage(1, 'v1', 0)], book);
    expect(book.tick(HOUR_MS)).toEqual([]);
    expect(book.list()[0].state).toBe('ongoing');
    const resolved = book.tick(10 * HOUR_MS);
    expect(resolved.map((e) => e.kind)).toEqual(['problem_resolved']);
    expect(book.tick(11 * HOUR_MS)).toEqual([]);
    const back = feed([outage(2, 'v1', 12 * HOUR_MS)], book).events;
    expect(back.map((e) => [e.kind, e.at_ms])).toEqual([['problem_regressed', 12 * HOUR_MS]]);
    expect(feed([outage(3, 'v1', 12 * HOUR_MS + 1)], book).events).toEqual([]);
    expect(book.list()[0].state).toBe('regressed');
  });

  it('resolves a problem when a newer version runs enough units without it', () => {
    const book = createProblemBook({ minVersionUnits: 50 });
    feed([...Array.from({ length: 5 }, (_, i) => outage(i, 'v1', i)), ...Array.from({ length: 49 }, (_, i) => healthy(i, 'v2', 100 + i))], book);
    expect(book.tick(200).map((e) => e.kind)).toEqual([]);
    feed([healthy(49, 'v2', 149)], book);
    expect(book.tick(200).map((e) => e.kind)).toEqual(['problem_resolved']);
  });

  it('flags a problem growing in a version with the always-valid test, once, with rates and intervals', () => {
    const v1 = Array.from({ length: 200 }, (_, i) => (i % 50 === 0 ? outage(i, 'v1', i) : healthy(i, 'v1', i)));
    const v2 = Array.from({ length: 200 }, (_, i) => (i % 5 === 0 ? outage(1000 + i, 'v2', 1000 + i) : healthy(1000 + i, 'v2', 1000 + i)));
    const { book, events } = feed([...v1, ...v2]);
    const growing = events.filter((e) => e.kind === 'problem_growing');
    expect(growing.map((e) => [e.version, e.baseline, e.at_ms])).toEqual([['v2', 'v1', 1030]]);
    const [id] = book.list().map((p) => p.id);
    const rates = book.rates(id);
    expect(rates.map((r) => [r.version, r.units, r.occurrences, r.rate, r.baseline, r.growing])).toEqual([
      ['v1', 200, 4, 0.02, null, false],
      ['v2', 200, 40, 0.2, 'v1', true],
    ]);
    expect(rates[1].interval.map((x) => Number(x.toFixed(4)))).toEqual([0.1505, 0.2609]);
    expect(rates[1].p_value).toBeLessThan(0.05);
    expect(book.tick(2000).filter((e) => e.kind === 'problem_growing')).toEqual([]);
  });

  it('does not call a problem growing on fewer than five occurrences, even where the version before never had it', () => {
    const v1 = Array.from({ length: 100 }, (_, i) => healthy(i, 'v1', i));
    const v2 = Array.from({ length: 40 }, (_, i) => healthy(1000 + i, 'v2', 1000 + i));
    const book = feed([...v1, ...v2]).book;
    const firsts = feed(Array.from({ length: 4 }, (_, i) => outage(2000 + i, 'v2', 2000 + i)), book).events;
    expect(firsts.map((e) => e.kind)).toEqual(['problem_new']);
    expect(book.rates(book.list()[0].id).map((r) => [r.version, r.occurrences, r.growing])).toEqual([['v1', 0, false], ['v2', 4, false]]);
    const fifth = feed([outage(2004, 'v2', 2004)], book).events;
    expect(fifth.map((e) => [e.kind, e.version, e.baseline])).toEqual([['problem_growing', 'v2', 'v1']]);
  });

  it('keeps dismissals and merges with their reason, and counts a merged problem\'s later units in its target', () => {
    const { book } = feed([outage(1), refusal(2)]);
    const [out, ref] = [book.list().find((p) => p.cause === 'tool_error')!, book.list().find((p) => p.cause === 'check')!];
    book.takeChanged();
    book.dismiss(ref.id, 'expected: policy', 5);
    book.merge(ref.id, out.id, 'same root cause', 6);
    feed([refusal(3)], book);
    expect(book.get(out.id)!.count).toBe(3);
    expect(book.get(ref.id)).toMatchObject({ count: 1, dismissed: { reason: 'expected: policy', at_ms: 5 }, merged_into: { id: out.id, reason: 'same root cause', at_ms: 6 } });
    expect(book.takeChanged().sort()).toEqual([out.id, ref.id].sort());
    expect(() => book.merge(out.id, out.id, 'x', 7)).toThrow(RangeError);
  });

  it('comes back from its state exactly as it was', () => {
    const { book } = feed([outage(1), refusal(2), healthy(3)]);
    const again = createProblemBook({}, JSON.parse(JSON.stringify(book.state())));
    expect(again.state()).toEqual(book.state());
    expect(again.observe(refOf(outage(1)[0]), outage(1)[1], outage(1)[0]).problemId).toBeNull();
    expect(again.observe(refOf(outage(4)[0]), outage(4)[1], outage(4)[0]).problemId).toBe(book.list().find((p) => p.cause === 'tool_error')!.id);
  });

  it('puts new signatures past its bound in one overflow problem', () => {
    const book = createProblemBook({ maxProblems: 1 });
    feed([outage(1), refusal(2), [failureUnit('x', { tools: [['pay', 'permission denied']] }), [failed('t')]]], book);
    expect(book.list().map((p) => [p.key, p.count])).toEqual([[book.list()[0].key, 1], ['overflow', 2]]);
  });
});
