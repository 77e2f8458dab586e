import { logLevel, type logCreator } from 'kafkajs';
import type { Logger } from '../../runtime/logging/index.ts';

// Expected when the idempotent producer has bounded retries, which we want: a send must fail
// within a deadline rather than retry forever.
const QUIET_MESSAGES = new Set(['Limiting retries for the idempotent producer may invalidate EoS guarantees']);
// Broker answers kafkajs logs as errors although the caller handles them: services started together
// create the same topics, and the one that loses the race is told the topic exists (createTopics
// then succeeds; for several topics at once the answer is kafkajs's "Topic creation errors", whose
// parts admin.createTopics reads: all "exists" is success, anything else is thrown to ensureTopics,
// which reports it). Logged at debug, so that an error line still means something went wrong.
const QUIET_RESPONSE_ERRORS = new Set(['Topic with this name already exists', 'Topic creation errors']);
// Answers a broker gives for a moment after a topic is created or the broker started, which kafkajs
// retries (all retriable): a new topic is not in every broker's metadata at once ("unknown topic",
// "no leader"), and a broker just started loads its coordinators' state (producer ids, groups). What
// stays so fails the caller's own request, which we report; the moment is not an error (CI's cold
// start of four services logged each of these once).
const TRANSIENT_AT_START: ReadonlyArray<readonly [api: string, error: string]> = [
  ['Metadata', 'This server does not host this topic-partition'],
  ['Metadata', 'There is no leader for this topic-partition as we are in the middle of a leadership election'],
  ['*', "The coordinator is loading and hence can't process requests for this group"],
  ['*', 'The group coordinator is not available'],
];

function isQuietResponse(message: string, error: string): boolean {
  if (!message.startsWith('Response ')) return false;
  if (QUIET_RESPONSE_ERRORS.has(error)) return true;
  const api = message.slice('Response '.length).split('(')[0];
  return TRANSIENT_AT_START.some(([a, e]) => e === error && (a === '*' || a === api));
}

/** The kafkajs level to ask for, so it does not build entries that pino would drop. */
export function kafkaLogLevel(log: Logger): logLevel {
  if (log.isLevelEnabled('debug')) return logLevel.DEBUG;
  if (log.isLevelEnabled('warn')) return logLevel.WARN;
  return logLevel.ERROR;
}

/** Routes kafkajs's own logging into our pino logger as structured entries. */
export function createKafkaLogCreator(log: Logger): logCreator {
  return () => ({ namespace, level, log: entry }) => {
    const { message, timestamp: _timestamp, logger: _logger, ...fields } = entry;
    const child = { kafkajs: namespace, ...fields };
    if (QUIET_MESSAGES.has(message) || isQuietResponse(message, String(fields.error))) {
      log.debug(child, message);
      return;
    }
    switch (level) {
      case logLevel.ERROR:
        log.error(child, message);
        break;
      case logLevel.WARN:
        log.warn(child, message);
        break;
      default:
        // kafkajs "info" is connection chatter; our own components log the events that matter.
        log.debug(child, message);
    }
  };
}
