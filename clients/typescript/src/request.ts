/** One HTTP call to the API: JSON in and out, the key as a bearer token, errors as TracecheckError. */
export type Requester = <T>(method: string, path: string, body?: unknown) => Promise<T>;

export class TracecheckError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(`${status}: ${message}`);
    this.name = 'TracecheckError';
  }
}

export function createRequester(baseUrl: string, apiKey: string | undefined): Requester {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const res = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    if (!res.ok) {
      let message = text;
      try {
        message = (JSON.parse(text) as { error?: string }).error ?? text;
      } catch {
        // Not JSON: the text is the message.
      }
      throw new TracecheckError(res.status, message);
    }
    return JSON.parse(text) as T;
  };
}
