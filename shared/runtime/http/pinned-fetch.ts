import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';

export interface PinnedRequest {
  method: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
}

/**
 * One HTTP(S) request to `url` over a connection to `address` (checked beforehand), whatever the
 * host's name resolves to now: TLS still verifies the certificate against the URL's host. No
 * redirect is followed, and the answer's body is never read (only its status and headers).
 */
export function pinnedFetch(url: string, init: PinnedRequest, target: { address: string; family: 4 | 6 }): Promise<Response> {
  const u = new URL(url);
  const lookup: LookupFunction = (_host, options, callback) => {
    if (options.all) (callback as unknown as (err: null, all: Array<{ address: string; family: number }>) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const options: RequestOptions = {
    method: init.method,
    headers: { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) },
    lookup,
    signal: init.signal,
  };
  return new Promise((resolve, reject) => {
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, options, (res) => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (typeof value === 'string') headers.set(name, value);
        else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      }
      const status = res.statusCode ?? 0;
      res.destroy();
      // A status Response cannot carry (1xx, or nonsense) reads as a bad gateway.
      resolve(new Response(null, { status: status >= 200 && status <= 599 ? status : 502, headers }));
    });
    req.on('error', (err) => reject(init.signal.aborted ? (init.signal.reason as Error) : Object.assign(new TypeError('fetch failed'), { cause: err })));
    req.end(init.body);
  });
}
