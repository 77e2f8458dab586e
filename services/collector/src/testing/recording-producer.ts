import { BusFullError, type OutgoingMessage, type Producer } from '../../../../shared/adapters/bus/index.ts';
import { RetriableError } from '../../../../shared/runtime/errors/index.ts';

/** A Producer that records what it was sent; `mode` makes it fail or hang like a down broker. */
export interface RecordingProducer extends Producer {
  sent: Array<{ topic: string; message: OutgoingMessage }>;
  mode: 'ok' | 'fail' | 'hang' | 'full';
}

export function createRecordingProducer(): RecordingProducer {
  const p: RecordingProducer = {
    name: 'recording-producer',
    sent: [],
    mode: 'ok',
    start: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
    send(topic, messages) {
      if (p.mode === 'fail') return Promise.reject(new RetriableError('broker unreachable'));
      if (p.mode === 'hang') return new Promise<void>(() => undefined);
      if (p.mode === 'full') return Promise.reject(new BusFullError('the in-process bus holds 100000 records of tracecheck.spans that its consumers have not finished'));
      for (const message of messages) p.sent.push({ topic, message });
      return Promise.resolve();
    },
  };
  return p;
}
