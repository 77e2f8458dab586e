import { describe, expect, it } from 'vitest';
import { admissionKey, createAdmission } from './admission.ts';

const limits = { maxRequests: 8, maxBytes: 1_000, maxRequestsPerKey: 2, maxBytesPerKey: 400 };

describe('admission', () => {
  it('gives one key at most its share of the slots; other keys are still admitted', () => {
    const a = createAdmission(limits);
    const held = [a.tryEnter('k1', 0), a.tryEnter('k1', 0)];
    expect(held.every((t) => t !== null)).toBe(true);
    expect(a.tryEnter('k1', 0)).toBeNull();
    expect(a.tryEnter('k2', 0)).not.toBeNull();
    held[0]!.release();
    held[0]!.release(); // twice is once
    expect(a.tryEnter('k1', 0)).not.toBeNull();
    expect(a.tryEnter('k1', 0)).toBeNull();
  });

  it('counts bytes as they arrive (a chunked body declares none), in all and per key', () => {
    const a = createAdmission(limits);
    const first = a.tryEnter('k1', 0)!;
    expect(first.ensure(300)).toBe(true);
    // Alone, an export may grow past the limits (the body cap bounds it).
    expect(first.ensure(1_500)).toBe(true);
    first.release();
    const x = a.tryEnter('k1', 0)!;
    const y = a.tryEnter('k1', 0)!;
    expect(x.ensure(300)).toBe(true);
    expect(y.ensure(101)).toBe(false); // k1 would hold 401 > 400
    expect(y.ensure(100)).toBe(true);
    const others = [a.tryEnter('k2', 0)!, a.tryEnter('k3', 0)!];
    expect(others[0].ensure(400)).toBe(true);
    expect(others[1].ensure(201)).toBe(false); // 1,001 in all
    x.release();
    expect(others[1].ensure(201)).toBe(true);
    // A declared size is charged at once.
    expect(a.tryEnter('k4', 500)).toBeNull();
  });

  it('one key however it is spelled', () => {
    expect(admissionKey('Bearer tc_ingest_abc')).toBe('tc_ingest_abc');
    expect(admissionKey('  bearer   tc_ingest_abc ')).toBe('tc_ingest_abc');
    expect(admissionKey(undefined)).toBe('');
    expect(admissionKey('Basic xyz')).toBe('');
  });
});
