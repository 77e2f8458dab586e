import { describe, expect, it } from 'vitest';
import { mergeBadges, parseBadges } from './duckdb-badges.ts';

describe('score badges kept on a DuckDB unit row', () => {
  const before = [
    { check: 'grounded', check_version: '1', status: 'ok', passed: true, value: 1 },
    { check: 'polite', check_version: '1', status: 'ok', passed: false, value: 0 },
  ];

  it('a score replaces the badge of its check and version, adds the others, sorted by check then version', () => {
    const merged = mergeBadges(before, [
      { unit_id: 'u', check: 'polite', check_version: '1', status: 'error', passed: null, value: null },
      { unit_id: 'u', check: 'grounded', check_version: '10', status: 'ok', passed: false, value: 0.25 },
      { unit_id: 'u', check: 'a "quoted" \\ check', check_version: '1', status: 'ok', passed: true, value: 1 },
    ]);
    expect(parseBadges(merged)).toEqual([
      { check: 'a "quoted" \\ check', check_version: '1', status: 'ok', passed: true, value: 1 },
      { check: 'grounded', check_version: '1', status: 'ok', passed: true, value: 1 },
      { check: 'grounded', check_version: '10', status: 'ok', passed: false, value: 0.25 },
      { check: 'polite', check_version: '1', status: 'error', passed: null, value: null },
    ]);
  });

  it('the later of two scores of one key wins', () => {
    const merged = mergeBadges([], [
      { unit_id: 'u', check: 'c', check_version: '1', status: 'ok', passed: true, value: 1 },
      { unit_id: 'u', check: 'c', check_version: '1', status: 'ok', passed: false, value: 0 },
    ]);
    expect(parseBadges(merged)).toEqual([{ check: 'c', check_version: '1', status: 'ok', passed: false, value: 0 }]);
  });

  it('no stored badges read as none', () => {
    expect(parseBadges(null)).toEqual([]);
    expect(parseBadges('[]')).toEqual([]);
  });
});
