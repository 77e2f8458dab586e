import { describe, expect, it } from 'vitest';
import { createTestUnit } from '../../../test/helpers/unit-factory.ts';
import { PermanentError } from '../../runtime/errors/index.ts';
import { parseUnit } from './unit.v1.ts';

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
});
