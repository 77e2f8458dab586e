import { logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createKafkaLogCreator } from './kafka-log.ts';
import type { Logger } from '../../runtime/logging/index.ts';

function recorder(): { log: Logger; lines: Array<[string, string]> } {
  const lines: Array<[string, string]> = [];
  const at = (level: string) => (_fields: object, message: string) => lines.push([level, message]);
  return { log: { error: at('error'), warn: at('warn'), debug: at('debug') } as unknown as Logger, lines };
}

describe('kafkajs logging', () => {
  it("puts the broker's 'topic exists' answer (services creating topics together) at debug, other response errors at error", () => {
    const { log, lines } = recorder();
    const write = createKafkaLogCreator(log)(logLevel.DEBUG);
    const entry = (error: string) => ({ namespace: 'Connection', level: logLevel.ERROR, label: 'ERROR', log: { timestamp: 't', logger: 'kafkajs', message: 'Response CreateTopics(key: 19, version: 3)', error } });
    write(entry('Topic with this name already exists'));
    write(entry('Not authorized to access topics'));
    expect(lines).toEqual([
      ['debug', 'Response CreateTopics(key: 19, version: 3)'],
      ['error', 'Response CreateTopics(key: 19, version: 3)'],
    ]);
  });

  it("puts a Metadata answer that a new topic is not yet known or led at debug; the same answer to a Produce stays an error; a coordinator still loading after a broker start is debug", () => {
    const { log, lines } = recorder();
    const write = createKafkaLogCreator(log)(logLevel.DEBUG);
    const entry = (message: string, error: string) => ({ namespace: 'Connection', level: logLevel.ERROR, label: 'ERROR', log: { timestamp: 't', logger: 'kafkajs', message, error } });
    write(entry('Response Metadata(key: 3, version: 6)', 'This server does not host this topic-partition'));
    write(entry('Response Metadata(key: 3, version: 6)', 'There is no leader for this topic-partition as we are in the middle of a leadership election'));
    write(entry('Response Metadata(key: 3, version: 6)', 'Not authorized to access topics: [Topic authorization failed.]'));
    write(entry('Response Produce(key: 0, version: 7)', 'This server does not host this topic-partition'));
    write(entry('Response InitProducerId(key: 22, version: 1)', "The coordinator is loading and hence can't process requests for this group"));
    expect(lines).toEqual([
      ['debug', 'Response Metadata(key: 3, version: 6)'],
      ['debug', 'Response Metadata(key: 3, version: 6)'],
      ['error', 'Response Metadata(key: 3, version: 6)'],
      ['error', 'Response Produce(key: 0, version: 7)'],
      ['debug', 'Response InitProducerId(key: 22, version: 1)'],
    ]);
  });
});
