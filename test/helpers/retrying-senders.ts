import { setTimeout as sleep } from 'node:timers/promises';

// Exporters as the OTel SDK's behave under backpressure: each sends an export, and on 429/503 sends
// the same export again after Retry-After, until it lands. For the burst and backlog tests.

export interface RetryingSendResult {
  /** Trace ids of the exports answered 200. */
  acknowledged: string[];
  /** Answers 429 and 503 (each followed by the same export again). */
  refused429: number;
  refused503: number;
}

export async function sendWithRetries(options: {
  url: string;
  senders: number;
  /** Called before each new export: false stops that sender. */
  more: () => boolean;
  makeExport: () => { ids: string[]; body: string | Buffer };
}): Promise<RetryingSendResult> {
  const out: RetryingSendResult = { acknowledged: [], refused429: 0, refused503: 0 };
  await Promise.all(
    Array.from({ length: options.senders }, async () => {
      while (options.more()) {
        const batch = options.makeExport();
        for (;;) {
          const res = await fetch(`${options.url}/v1/traces`, { method: 'POST', headers: { 'content-type': typeof batch.body === 'string' ? 'application/json' : 'application/x-protobuf' }, body: batch.body, signal: AbortSignal.timeout(60_000) });
          await res.arrayBuffer();
          if (res.status === 200) break;
          if (res.status === 429) out.refused429++;
          else if (res.status === 503) out.refused503++;
          else throw new Error(`the collector answered ${res.status}`);
          await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000);
        }
        out.acknowledged.push(...batch.ids);
      }
    }),
  );
  return out;
}
