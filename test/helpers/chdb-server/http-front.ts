import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync, inflateSync, deflateSync } from 'node:zlib';

/**
 * What the front needs of a chdb session: a query, optionally with bound `{name:Type}` parameters,
 * run asynchronously (off the event loop), and a raw insert of a payload.
 */
export interface ChdbEngine {
  query(sql: string, format: string): Promise<EngineResult>;
  queryBind(sql: string, params: Record<string, string>, format: string): Promise<EngineResult>;
  insert(params: { table: string; values: Buffer; format: RawInsertFormat; columns?: string[] }): Promise<{ rowsWritten: number; bytesWritten: number }>;
}

interface EngineResult {
  bytes(): Uint8Array;
  readonly rowsRead: number;
  readonly bytesRead: number;
}

type RawInsertFormat = 'JSONEachRow' | 'JSONCompactEachRow' | 'CSV' | 'CSVWithNames' | 'TSV' | 'TabSeparated' | 'TSVWithNames' | 'TabSeparatedWithNames';
const RAW_INSERT_FORMATS = new Set<string>(['JSONEachRow', 'JSONCompactEachRow', 'CSV', 'CSVWithNames', 'TSV', 'TabSeparated', 'TSVWithNames', 'TabSeparatedWithNames']);

export interface FrontOptions {
  engine: ChdbEngine;
  /** The engine's version, as `SELECT version()` reports it: ClickHouse ends every exception text with it. */
  version: string;
  /** The one user the front knows (ClickHouse's default: `default` with an empty password). */
  user?: { name: string; password: string };
  /** Settings of the server's default profile (already SET on the session): a query's own settings are undone back to these. */
  profile?: Record<string, string>;
}

// URL parameters the HTTP interface reads itself; every other one is a setting of the query.
const NOT_SETTINGS = new Set(['query', 'database', 'default_format', 'query_id', 'user', 'password', 'session_id', 'session_timeout', 'session_check', 'compress', 'decompress', 'buffer_size', 'role', 'quota_key', 'stacktrace', 'client_protocol_version']);

// The HTTP status a current server answers an exception code with (HTTPHandler's
// exceptionCodeToHTTPStatus); anything else is 500.
const STATUS_BY_CODE = new Map<number, number>([
  [194, 401], // REQUIRED_PASSWORD
  [192, 403], [193, 403], [516, 403], [495, 403], // UNKNOWN_USER, WRONG_PASSWORD, AUTHENTICATION_FAILED, SET_NON_GRANTED_ROLE
  // parse and syntax errors, type mismatches, incorrect data
  [6, 400], [26, 400], [27, 400], [38, 400], [41, 400], [53, 400], [62, 400], [72, 400], [117, 400], [167, 400], [168, 400],
  // unknown table, function, identifier, type, storage, database, setting, format, aggregate function
  [60, 404], [46, 404], [47, 404], [50, 404], [56, 404], [81, 404], [115, 404], [73, 404], [63, 404],
  [48, 501], // NOT_IMPLEMENTED
  [159, 408], // TIMEOUT_EXCEEDED
]);
const NAME_BY_CODE = new Map<number, string>([[115, 'UNKNOWN_SETTING'], [516, 'AUTHENTICATION_FAILED'], [49, 'LOGICAL_ERROR']]);

const CONTENT_TYPES: Record<string, string> = {
  JSON: 'application/json; charset=UTF-8',
  JSONCompact: 'application/json; charset=UTF-8',
  JSONEachRow: 'application/x-ndjson; charset=UTF-8',
  JSONCompactEachRow: 'application/x-ndjson; charset=UTF-8',
  JSONStringsEachRow: 'application/x-ndjson; charset=UTF-8',
  CSV: 'text/csv; charset=UTF-8; header=absent',
  CSVWithNames: 'text/csv; charset=UTF-8; header=present',
};

class FrontError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** The exception code of an engine error: chdb's errors carry it, and its text starts "Code: N.". */
function codeOf(err: unknown): number {
  const carried = (err as { clickhouseCode?: unknown } | null)?.clickhouseCode;
  if (typeof carried === 'number') return carried;
  const m = /^Code: (\d+)\./.exec(err instanceof Error ? err.message : String(err));
  return m ? Number(m[1]) : 1000;
}

/** The text a server sends: "Code: N. DB::Exception: … (NAME) (version X)". */
function exceptionText(err: unknown, version: string): { code: number; text: string } {
  if (err instanceof FrontError) {
    const name = NAME_BY_CODE.get(err.code) ?? 'UNKNOWN_EXCEPTION';
    return { code: err.code, text: `Code: ${err.code}. DB::Exception: ${err.message}. (${name}) (version ${version})\n` };
  }
  const message = err instanceof Error ? err.message : String(err);
  const code = codeOf(err);
  const body = /^Code: \d+\./.test(message) ? message : `Code: ${code}. DB::Exception: ${message}`;
  return { code, text: `${body.trimEnd()} (version ${version})\n` };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const encoding = (req.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding === 'gzip') return gunzipSync(raw);
  if (encoding === 'deflate') return inflateSync(raw);
  if (encoding === '' || encoding === 'identity') return raw;
  throw new FrontError(1000, `Unknown Content-Encoding of HTTP request: ${encoding}`);
}

function credentials(req: IncomingMessage, url: URL): { user: string; password: string } {
  const header = req.headers.authorization;
  if (header?.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const at = decoded.indexOf(':');
    return { user: decoded.slice(0, at < 0 ? undefined : at), password: at < 0 ? '' : decoded.slice(at + 1) };
  }
  const user = req.headers['x-clickhouse-user'];
  const key = req.headers['x-clickhouse-key'];
  if (typeof user === 'string') return { user, password: typeof key === 'string' ? key : '' };
  return { user: url.searchParams.get('user') ?? 'default', password: url.searchParams.get('password') ?? '' };
}

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', r: '\r', n: '\n', t: '\t', '0': '\0', a: '\x07', v: '\v' };

/** A `param_*` value as the server reads it: escaped text (the client writes `it\'s` for "it's"); chdb binds it verbatim. */
function unescapeParam(value: string): string {
  return value.replace(/\\(x[0-9A-Fa-f]{2}|.)/gs, (_, c: string) => (c.length === 3 ? String.fromCharCode(parseInt(c.slice(1), 16)) : (ESCAPES[c] ?? c)));
}

/** A SETTINGS value as SQL: numbers and booleans bare, anything else a quoted string. */
export function settingLiteral(value: string): string {
  if (/^-?\d+(\.\d+)?$/.test(value)) return value;
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

const INSERT_RE = /^\s*INSERT\s+INTO\s+([A-Za-z0-9_.`]+)\s*(?:\(([^()]*)\))?\s*FORMAT\s+(\w+)\s*$/i;

/**
 * The HTTP interface of a ClickHouse server in front of one chdb session, as far as
 * `@clickhouse/client` uses it: the query in the URL and/or the body, INSERT data in the body,
 * `param_*` query parameters, `database`, `default_format` and FORMAT clauses, settings in the URL,
 * `query_id`, `X-ClickHouse-Summary`, exceptions with `X-ClickHouse-Exception-Code` and the server's
 * text and status, `/ping`, gzip/deflate both ways. One query at a time: the session's current
 * database and settings are state, and chdb serves one query per session.
 */
export function createChdbHttpFront(options: FrontOptions): Server {
  const { engine, version } = options;
  const known = options.user ?? { name: 'default', password: '' };
  const profile = options.profile ?? {};
  let queue: Promise<unknown> = Promise.resolve();
  let currentDatabase = 'default';

  /** Runs one request's statements alone on the session. */
  function serialized<T>(fn: () => Promise<T>): Promise<T> {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  }

  async function useDatabase(database: string): Promise<void> {
    if (database === currentDatabase) return;
    await engine.query(`USE \`${database.replace(/`/g, '\\`')}\``, 'TabSeparated');
    currentDatabase = database;
  }

  async function execute(url: URL, body: Buffer): Promise<{ data: Uint8Array; format: string; summary: Record<string, string> }> {
    const params = url.searchParams;
    const settings: [string, string][] = [];
    const bound: Record<string, string> = {};
    for (const [key, value] of params) {
      if (key.startsWith('param_')) bound[key.slice(6)] = unescapeParam(value);
      else if (!NOT_SETTINGS.has(key) && key !== 'enable_http_compression') settings.push([key, value]);
    }
    const format = params.get('default_format') ?? 'TabSeparated';
    const urlQuery = params.get('query') ?? '';
    const started = process.hrtime.bigint();
    await useDatabase(params.get('database') ?? 'default');
    for (const [key, value] of settings) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new FrontError(115, `Unknown setting '${key}'`);
      await engine.query(`SET ${key} = ${settingLiteral(value)}`, 'TabSeparated');
    }
    try {
      const insert = INSERT_RE.exec(urlQuery);
      if (insert && body.length > 0 && RAW_INSERT_FORMATS.has(insert[3]) && Object.keys(bound).length === 0) {
        // The client's insert: statement in the URL, rows in the body (a server reads them as the statement's data).
        const columns = insert[2]?.split(',').map((c) => c.trim().replace(/^`|`$/g, '')).filter(Boolean);
        const w = await engine.insert({ table: insert[1], values: body, format: insert[3] as RawInsertFormat, ...(columns?.length ? { columns } : {}) });
        return { data: new Uint8Array(), format, summary: summaryOf(started, 0, 0, w.rowsWritten, w.bytesWritten, 0, 0) };
      }
      const text = body.length === 0 ? urlQuery : urlQuery === '' ? body.toString('utf8') : `${urlQuery}\n${body.toString('utf8')}`;
      if (text.trim() === '') throw new FrontError(62, 'Empty query');
      const r = Object.keys(bound).length > 0 ? await engine.queryBind(text, bound, format) : await engine.query(text, format);
      const data = r.bytes();
      return { data, format: formatOf(text, format), summary: summaryOf(started, r.rowsRead, r.bytesRead, 0, 0, 0, data.byteLength) };
    } finally {
      for (const [key] of settings) {
        const restored = profile[key] === undefined ? 'DEFAULT' : settingLiteral(profile[key]);
        await engine.query(`SET ${key} = ${restored}`, 'TabSeparated').catch(() => undefined);
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/ping' || (url.pathname === '/' && req.method === 'GET' && !url.searchParams.has('query'))) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' }).end('Ok.\n');
      return;
    }
    const queryId = url.searchParams.get('query_id') || randomUUID();
    const base: Record<string, string> = { 'X-ClickHouse-Query-Id': queryId, 'X-ClickHouse-Server-Display-Name': 'chdb', 'X-ClickHouse-Timezone': 'UTC' };
    try {
      const { user, password } = credentials(req, url);
      if (user !== known.name || password !== known.password) {
        throw new FrontError(516, `${user}: Authentication failed: password is incorrect, or there is no user with such name`);
      }
      const body = await readBody(req);
      const out = await serialized(() => execute(url, body));
      const headers: Record<string, string> = {
        ...base,
        'Content-Type': CONTENT_TYPES[out.format] ?? 'text/tab-separated-values; charset=UTF-8',
        'X-ClickHouse-Format': out.format,
        'X-ClickHouse-Summary': JSON.stringify(out.summary),
      };
      let payload = Buffer.from(out.data);
      const accept = String(req.headers['accept-encoding'] ?? '');
      if (url.searchParams.get('enable_http_compression') === '1' && /\bgzip\b/.test(accept)) {
        payload = gzipSync(payload);
        headers['Content-Encoding'] = 'gzip';
      } else if (url.searchParams.get('enable_http_compression') === '1' && /\bdeflate\b/.test(accept)) {
        payload = deflateSync(payload);
        headers['Content-Encoding'] = 'deflate';
      }
      res.writeHead(200, headers).end(payload);
    } catch (err) {
      const { code, text } = exceptionText(err, version);
      res
        .writeHead(STATUS_BY_CODE.get(code) ?? 500, { ...base, 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Exception-Code': String(code) })
        .end(text);
    }
  }

  return createServer((req, res) => {
    void handle(req, res);
  });
}

/** The output format: the query's own FORMAT clause wins over `default_format`. */
function formatOf(query: string, fallback: string): string {
  const m = /\bFORMAT\s+(\w+)\s*;?\s*$/i.exec(query);
  return m ? m[1] : fallback;
}

function summaryOf(started: bigint, readRows: number, readBytes: number, writtenRows: number, writtenBytes: number, totalRows: number, resultBytes: number): Record<string, string> {
  return {
    read_rows: String(readRows),
    read_bytes: String(readBytes),
    written_rows: String(writtenRows),
    written_bytes: String(writtenBytes),
    total_rows_to_read: String(totalRows),
    result_rows: String(writtenRows),
    result_bytes: String(resultBytes),
    elapsed_ns: String(process.hrtime.bigint() - started),
  };
}
