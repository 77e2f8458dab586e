import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { FatalError, RetriableError } from '../../runtime/errors/index.ts';
import { isRecordRefused, toSendError } from './kafka-errors.ts';

// Errors shaped as kafkajs makes them (its classes are not importable as ESM names).
const protocol = (type: string, retriable: boolean) => Object.assign(new Error(type), { name: 'KafkaJSProtocolError', type, retriable });

describe('produce failures by class', () => {
  it('tells a record refused for what it is, however kafkajs wrapped it', () => {
    expect(isRecordRefused(protocol('INVALID_RECORD', false))).toBe(true);
    expect(isRecordRefused(Object.assign(new Error('retries'), { name: 'KafkaJSNumberOfRetriesExceeded', cause: protocol('CORRUPT_MESSAGE', true) }))).toBe(true);
    expect(isRecordRefused(protocol('TOPIC_AUTHORIZATION_FAILED', false))).toBe(false);
  });

  it('retries what a broker outage or election explains, and stops the service on anything else', () => {
    expect(toSendError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), 'sending')).toBeInstanceOf(RetriableError);
    expect(toSendError(protocol('LEADER_NOT_AVAILABLE', true), 'sending')).toBeInstanceOf(RetriableError);
    // A deleted topic on a broker that creates none: retried, as the dead-letter test expects (it is created again).
    expect(toSendError(Object.assign(new Error('retries'), { name: 'KafkaJSNumberOfRetriesExceeded', cause: protocol('UNKNOWN_TOPIC_OR_PARTITION', true) }), 'sending')).toBeInstanceOf(RetriableError);
    const denied = toSendError(Object.assign(new Error('Not authorized to access topics: [Topic authorization failed]'), { name: 'KafkaJSNonRetriableError', cause: protocol('TOPIC_AUTHORIZATION_FAILED', false) }), 'sending 3 record(s) to units');
    expect(denied).toBeInstanceOf(FatalError);
    expect(denied.message).toBe('sending 3 record(s) to units: Not authorized to access topics: [Topic authorization failed]');
  });

  it('retries a broker outage as kafkajs reports it after its nested retriers gave up (the outage test: the collector stopped)', () => {
    const errors = createRequire(import.meta.url)('kafkajs/src/errors.js') as Record<string, new (e: unknown, o?: unknown) => Error>;
    const refused = new errors.KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092', { broker: '127.0.0.1:9092', code: 'ECONNREFUSED' });
    const exhausted = new errors.KafkaJSNumberOfRetriesExceeded(refused, { retryCount: 5, retryTime: 10_000 });
    const outer = new errors.KafkaJSNonRetriableError(exhausted, { cause: exhausted });
    expect(toSendError(outer, 'sending 100 record(s) to spans')).toBeInstanceOf(RetriableError);
    expect(toSendError(new errors.KafkaJSNonRetriableError(refused, { cause: refused }), 'sending')).toBeInstanceOf(RetriableError);
    // Its own refusals without a cause (bad arguments) still stop the service.
    expect(toSendError(new errors.KafkaJSNonRetriableError('Invalid topics array'), 'sending')).toBeInstanceOf(FatalError);
  });
});
