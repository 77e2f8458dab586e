import { describe, expect, it } from 'vitest';
import { PermanentError, RetriableError } from '../../runtime/errors/index.ts';
import { classifyClickHouseError, clickHouseErrorCode } from './clickhouse-errors.ts';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('classifyClickHouseError', () => {
  it('reads the exception code from 18.16 and from current servers', () => {
    expect(clickHouseErrorCode(new Error('Code: 62, e.displayText() = DB::Exception: Syntax error: failed at position 1'))).toBe(62);
    expect(clickHouseErrorCode(withCode('Syntax error', '62'))).toBe(62);
    expect(clickHouseErrorCode(new Error('Code: 241. DB::Exception: Memory limit (total) exceeded. (MEMORY_LIMIT_EXCEEDED)'))).toBe(241);
    expect(clickHouseErrorCode(withCode('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'))).toBeNull();
  });

  it('marks syntax, type and unknown-identifier errors permanent, keeping the cause', () => {
    const cause = new Error('Code: 62, e.displayText() = DB::Exception: Syntax error');
    const err = classifyClickHouseError(cause, 'query');
    expect(err).toBeInstanceOf(PermanentError);
    expect(err.cause).toBe(cause);
    expect(classifyClickHouseError(withCode('Illegal types', '43'), 'query')).toBeInstanceOf(PermanentError);
    expect(classifyClickHouseError(withCode('Unknown setting param_x', '115'), 'query')).toBeInstanceOf(PermanentError);
  });

  it('marks overload, timeouts and connection failures retriable', () => {
    expect(classifyClickHouseError(withCode('Too many parts', '252'), 'insert')).toBeInstanceOf(RetriableError);
    expect(classifyClickHouseError(withCode('Memory limit', '241'), 'insert')).toBeInstanceOf(RetriableError);
    expect(classifyClickHouseError(withCode('connect ECONNREFUSED 127.0.0.1:18123', 'ECONNREFUSED'), 'insert')).toBeInstanceOf(RetriableError);
    expect(classifyClickHouseError(new Error('Timeout error.'), 'insert')).toBeInstanceOf(RetriableError);
    expect(classifyClickHouseError(new Error('<html>502 Bad Gateway</html>'), 'insert')).toBeInstanceOf(RetriableError);
  });

  it('does not retry our own bugs and keeps already-classified errors', () => {
    expect(classifyClickHouseError(new TypeError('x is undefined'), 'insert')).toBeInstanceOf(PermanentError);
    const retriable = new RetriableError('already');
    expect(classifyClickHouseError(retriable, 'insert')).toBe(retriable);
  });
});
