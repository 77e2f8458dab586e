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
});
