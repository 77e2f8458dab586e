import { describe, expect, it } from 'vitest';
import { createTestUnit } from '../../../test/helpers/unit-factory.ts';
import { PermanentError } from '../../runtime/errors/index.ts';
import { isCheckedUnit, parseUnit } from './unit.v1.ts';

describe('parseUnit', () => {
  it('reads a unit record back as the unit', () => {
    const unit = createTestUnit(3);
    expect(parseUnit(JSON.stringify(unit))).toEqual(unit);
  });

  it('refuses text that is not JSON, or not a unit, as permanent', () => {
    expect(() => parseUnit('{')).toThrow(PermanentError);
    expect(() => parseUnit('{')).toThrow(/^record is not JSON: /);
    expect(() => parseUnit(JSON.stringify({ ...createTestUnit(1), kind: 'batch' }))).toThrow('record is not a unit v1: kind: Invalid option: expected one of "trace"|"session"');
  });

  it("checks the producer's object instead of the text when the bus has it, giving a copy of its own", () => {
    const unit = createTestUnit(2);
    const read = parseUnit('not read', unit);
    expect(JSON.stringify(read)).toBe(JSON.stringify(parseUnit(JSON.stringify(unit))));
    expect(read).not.toBe(unit);
    expect(read.message_history).not.toBe(unit.message_history);
    expect(() => parseUnit('{}', { ...unit, kind: 'batch' })).toThrow('record is not a unit v1: kind: Invalid option: expected one of "trace"|"session"');
  });

  it('marks what it gave as checked (the store does not check it again), and nothing else', () => {
    const unit = createTestUnit(1);
    expect(isCheckedUnit(parseUnit(JSON.stringify(unit)))).toBe(true);
    expect(isCheckedUnit(unit)).toBe(false);
  });
});
