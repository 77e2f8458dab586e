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
});
