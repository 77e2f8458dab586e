import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Component } from '../../../shared/runtime/lifecycle/index.ts';
import { createComponent } from '../../../shared/runtime/lifecycle/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { audioOf, TEXT_ONLY_MODEL, withHeardAudio } from './audio.ts';
import { completionBody, completionChunks } from './completion.ts';
import { errorBody, failureFor } from './failure.ts';
import { hashHex } from './hash.ts';
import { ChatRequestSchema } from './request.ts';
import { responsesBody, responsesToChat, ResponsesRequestSchema } from './responses.ts';
import { respond, type JudgeAnswer } from './respond.ts';
import { PermanentError } from '../../../shared/runtime/errors/index.ts';

export interface ModelServerOptions {
  host?: string;
  /** 0 picks a free port; read it back with url(). */
  port?: number;
  log: Logger;
}

export type ModelServer = Component & {
  /** `http://host:port`, without `/v1` (OpenAI clients take `${url()}/v1`). Valid after start(). */
  url(): string;
};

const MOCK_MODELS = ['mock-accurate', 'mock-sloppy', 'mock-judge', TEXT_ONLY_MODEL, 'mock-429', 'mock-500', 'mock-503'] as const;

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_DELAY_MS = 60_000;

class HttpError extends PermanentError {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, err: HttpError): void {
  sendJson(res, err.status, { error: { message: err.message, type: err.type, param: null, code: err.code } });
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'Request body too large.');
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * An OpenAI-compatible model server that answers deterministically (see README.md): the only
 * stand-in for a real model that tests may use, and the model of the offline demo.
 */
export function createModelServer(options: ModelServerOptions): ModelServer {
  const log = options.log.child({ component: 'model-server' });
  const host = options.host ?? '127.0.0.1';
  let server: Server | null = null;
  let baseUrl: string | null = null;
  const failuresSeen = new Map<string, number>();
  // A fault every chat completion suffers until changed (POST /control/fault): judge-operations tests.
  let fault: { mode: 'none' | '429' | '503' | 'hang'; retryAfterSeconds: string } = { mode: 'none', retryAfterSeconds: '1' };
  // Judge answers a test scripted (POST /control/judge): for semantic verdicts the judge rule cannot reach.
  let judgeAnswers: JudgeAnswer[] = [];
  let completions = 0;
  const delays = new Set<NodeJS.Timeout>();

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => {
        delays.delete(t);
        resolve();
      }, ms);
      delays.add(t);
    });

  async function chatCompletions(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8')) as unknown;
    } catch {
      throw new HttpError(400, 'We could not parse the JSON body of your request.');
    }
    const modelName = typeof (json as { model?: unknown } | null)?.model === 'string' ? (json as { model: string }).model : undefined;
    completions += 1;
    if (fault.mode === '429' || fault.mode === '503') {
      const status = Number(fault.mode);
      sendJson(res, status, errorBody(status), { 'retry-after': fault.retryAfterSeconds });
      return;
    }
    if (fault.mode === 'hang') {
      // Never answers while the fault lasts; the client's timeout ends the request (or shutdown does).
      await sleep(MAX_DELAY_MS);
      res.destroy();
      return;
    }
    const plan = failureFor(modelName, header(req, 'x-mock-fail'), header(req, 'x-mock-retry-after'));
    if (plan) {
      const times = Number(header(req, 'x-mock-fail-times'));
      const key = hashHex(raw.toString('utf8'));
      const seen = failuresSeen.get(key) ?? 0;
      if (!Number.isFinite(times) || times <= 0 || seen < times) {
        failuresSeen.set(key, seen + 1);
        log.debug({ status: plan.status, model: modelName }, 'simulated failure');
        sendJson(res, plan.status, errorBody(plan.status), plan.retryAfterSeconds ? { 'retry-after': plan.retryAfterSeconds } : {});
        return;
      }
    }
    const parsed = ChatRequestSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new HttpError(400, `Invalid request: ${issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'bad body'}`);
    }
    const request = parsed.data;
    const audio = audioOf(request);
    if ('error' in audio) throw new HttpError(400, `Invalid request: ${audio.error}`);
    if (audio.heard.length > 0 && request.model === TEXT_ONLY_MODEL) throw new HttpError(400, `The model ${TEXT_ONLY_MODEL} does not support audio input.`);
    const reply = withHeardAudio(respond(request, judgeAnswers), audio.heard);
    const delayMs = Math.min(Number(header(req, 'x-mock-delay-ms')) || 0, MAX_DELAY_MS);
    if (delayMs > 0) await sleep(delayMs);
    log.debug({ model: request.model, mode: reply.mode, stream: request.stream === true }, 'chat completion');
    if (request.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      for (const chunk of completionChunks(request, reply)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    sendJson(res, 200, completionBody(request, reply));
  }

  // OpenAI's Responses API, answered by the same rules as chat (no streaming).
  async function responses(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let json: unknown;
    try {
      json = JSON.parse((await readBody(req)).toString('utf8')) as unknown;
    } catch {
      throw new HttpError(400, 'We could not parse the JSON body of your request.');
    }
    const parsed = ResponsesRequestSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new HttpError(400, `Invalid request: ${issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'bad body'}`);
    }
    if (parsed.data.stream === true) throw new HttpError(400, 'This server answers the Responses API without streaming.');
    completions += 1;
    const chat = responsesToChat(parsed.data);
    sendJson(res, 200, responsesBody(parsed.data, chat, respond(chat, judgeAnswers)));
  }

  function route(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
    const p = path.startsWith('/v1/') ? path.slice(3) : path;
    if (p === '/chat/completions') {
      if (req.method !== 'POST') throw new HttpError(405, 'Use POST for /v1/chat/completions.');
      return chatCompletions(req, res);
    }
    if (p === '/responses') {
      if (req.method !== 'POST') throw new HttpError(405, 'Use POST for /v1/responses.');
      return responses(req, res);
    }
    if (p === '/models' && req.method === 'GET') {
      sendJson(res, 200, { object: 'list', data: MOCK_MODELS.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'tracecheck' })) });
      return;
    }
    const one = /^\/models\/([^/]+)$/.exec(p);
    if (one && req.method === 'GET') {
      sendJson(res, 200, { id: decodeURIComponent(one[1]), object: 'model', created: 1_700_000_000, owned_by: 'tracecheck' });
      return;
    }
    if (p === '/control/fault' && req.method === 'POST') {
      return readBody(req).then((raw) => {
        const body = JSON.parse(raw.toString('utf8') || '{}') as { mode?: string; retry_after_s?: number };
        if (body.mode !== 'none' && body.mode !== '429' && body.mode !== '503' && body.mode !== 'hang') throw new HttpError(400, 'mode must be none, 429, 503 or hang');
        fault = { mode: body.mode, retryAfterSeconds: String(body.retry_after_s ?? 1) };
        log.info({ fault }, 'fault set');
        sendJson(res, 200, { fault: fault.mode, completions });
      });
    }
    if (p === '/control/judge' && req.method === 'POST') {
      return readBody(req).then((raw) => {
        const body = JSON.parse(raw.toString('utf8') || '{}') as { answers?: unknown };
        const ok = Array.isArray(body.answers) && body.answers.every((a: unknown) => typeof (a as JudgeAnswer)?.contains === 'string' && (a as JudgeAnswer).contains !== '' && typeof (a as JudgeAnswer).answer === 'string');
        if (!ok) throw new HttpError(400, 'answers must be a list of {contains: non-empty text, answer: text}');
        judgeAnswers = (body.answers as JudgeAnswer[]).map((a) => ({ contains: a.contains, answer: a.answer }));
        sendJson(res, 200, { answers: judgeAnswers.length });
      });
    }
    if (p === '/control/stats' && req.method === 'GET') {
      sendJson(res, 200, { completions, fault: fault.mode });
      return;
    }
    if (p === '/health' || p === '') {
      sendJson(res, 200, { status: 'ok' });
      return;
    }
    throw new HttpError(404, `Unknown request URL: ${req.method ?? 'GET'} ${path}.`, 'invalid_request_error', 'unknown_url');
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const fail = (err: unknown): void => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof HttpError) sendError(res, err);
      else {
        log.error({ err }, 'model server request failed');
        sendError(res, new HttpError(500, 'Internal error in the mock model server.', 'server_error'));
      }
    };
    try {
      const done = route(req, res);
      if (done) done.catch(fail);
    } catch (err) {
      fail(err);
    }
  }

  const component = createComponent('model-server', {
    start: async () => {
      const s = createServer(handle);
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(options.port ?? 0, host, () => {
          s.off('error', reject);
          resolve();
        });
      });
      server = s;
      const address = s.address() as AddressInfo;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      baseUrl = `http://${shownHost}:${address.port}`;
      log.info({ url: baseUrl }, 'model server listening');
    },
    stop: async () => {
      for (const t of delays) clearTimeout(t);
      delays.clear();
      const s = server;
      server = null;
      if (!s) return;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
    },
  });

  return {
    ...component,
    url() {
      if (!baseUrl) throw new Error('model server is not started');
      return baseUrl;
    },
  };
}
