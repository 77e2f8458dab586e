import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { DEFAULT_KAFKA_SESSION_TIMEOUT_MS, DEFAULT_LAG_INTERVAL_MS, DEFAULT_MAX_RECORD_BYTES, DEFAULT_MAX_SPANS_PER_TRACE, DEFAULT_OPEN_CAPS } from './defaults.ts';
import { DEFAULT_SCORER_CONCURRENCY, DEFAULT_SEGMENT_BYTES, DEFAULT_TRACE_COMPLETE_GRACE_MS, DEFAULT_TRACE_ENTRY_GRACE_MS } from './defaults.ts';
import { PROJECT_SHARES_ENV, projectSharesOf, type ProjectShares } from './project-shares.ts';
import { LANGFUSE_KEYS_ENV, type LangfuseKeyPair } from './langfuse-keys.ts';
import { CONTENT_REF_ENV, contentRefSettingsOf, type ContentRefSettings } from './content-refs.ts';
import { EVALUATION_EXPORT_ENV, evaluationExportOf, type EvaluationExportConfig } from './evaluation-export.ts';
import { parseAddressList, type AddressList } from '../http/index.ts';
import { domainList } from './domain-list.ts';
import { REDACTION_MODES, redactionRulesFromJson, type RedactionMode, type RedactionRule } from './redaction.ts';
import { PermanentError } from '../errors/index.ts';

const port = z.coerce.number().int().min(0).max(65_535);
const positiveInt = z.coerce.number().int().positive();
// DuckDB's buffer pool in embedded mode: cached pages and query state, evicted past it (the tables keep no in-memory index).
const DEFAULT_DUCKDB_MEMORY_LIMIT = '256MB';
const emptyAsUndefined = (v: unknown): unknown => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const addressList = z
  .string()
  .default('')
  .transform((text, ctx): AddressList => {
    const { list, problems } = parseAddressList(text);
    for (const message of problems) ctx.addIssue({ code: 'custom', message });
    return list;
  });

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Everything tracecheck reads from the environment, parsed once at start-up.
 * Unset Kafka → in-process bus; unset ClickHouse → embedded DuckDB under the data dir.
 */
export const ConfigSchema = z
  .object({
    TRACECHECK_KAFKA_BROKERS: z.preprocess(emptyAsUndefined, z.string().optional()),
    TRACECHECK_KAFKA_CLIENT_ID: z.string().default('tracecheck'),
    TRACECHECK_KAFKA_MAX_REQUEST_BYTES: z.coerce.number().int().min(16_384).default(1_048_588),
    // Kafka brokers accept 6 s to 5 min by default (group.min/max.session.timeout.ms).
    TRACECHECK_KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6_000).max(300_000).default(DEFAULT_KAFKA_SESSION_TIMEOUT_MS),
    TRACECHECK_KAFKA_PREFIX: z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only').default('tracecheck'),
    TRACECHECK_LAG_INTERVAL_MS: z.coerce.number().int().min(100).default(DEFAULT_LAG_INTERVAL_MS),
    TRACECHECK_LAG_BEHIND_RECORDS: positiveInt.default(10_000),
    TRACECHECK_BACKLOG_MAX_RECORDS: positiveInt.default(100_000),
    TRACECHECK_MAX_LAG_MS: positiveInt.default(5_000),
    TRACECHECK_COLLECTOR_WORKERS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(64).optional()),
    TRACECHECK_SHUTDOWN_TIMEOUT_MS: positiveInt.default(8_000),
    TRACECHECK_ASSEMBLER_HOLD_OPEN_TRACES: positiveInt.default(10_000),
    // One URL, or the replicas of a cluster separated by commas (the store fails over between them).
    TRACECHECK_CLICKHOUSE_URL: z.preprocess(
      emptyAsUndefined,
      z
        .string()
        .refine((text) => text.split(',').every((u) => z.url().safeParse(u.trim()).success), 'a URL, or URLs separated by commas')
        .optional(),
    ),
    TRACECHECK_CLICKHOUSE_CLUSTER: z.preprocess(emptyAsUndefined, z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier').optional()),
    TRACECHECK_CLICKHOUSE_INSERT_QUORUM: z.coerce.number().int().min(0).default(0),
    TRACECHECK_CLICKHOUSE_DATABASE: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier').default('tracecheck'),
    TRACECHECK_CLICKHOUSE_USER: z.string().default('default'),
    TRACECHECK_CLICKHOUSE_PASSWORD: z.string().default(''),
    TRACECHECK_DATA_DIR: z.string().default('./data'),
    // DuckDB's syntax for a size (e.g. 256MB, 1GiB): checked here so a typo fails at start, not at the first write.
    // The tables hold no primary-key index (which DuckDB kept in memory, past any limit), so what
    // DuckDB holds is cached pages and query state it can evict: a fixed bound keeps RSS flat.
    TRACECHECK_DUCKDB_MEMORY_LIMIT: z.preprocess(
      emptyAsUndefined,
      z
        .string()
        .regex(/^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, 'a size such as 256MB or 1GiB')
        .default(DEFAULT_DUCKDB_MEMORY_LIMIT),
    ),
    TRACECHECK_BUS_DIR: z.preprocess(emptyAsUndefined, z.string().optional()),
    TRACECHECK_BUS_FSYNC: z.stringbool().default(true),
    TRACECHECK_BUS_SEGMENT_BYTES: z.coerce.number().int().min(4096).default(DEFAULT_SEGMENT_BYTES),
    TRACECHECK_SPILL_DIR: z.preprocess(emptyAsUndefined, z.string().optional()),
    TRACECHECK_SPILL_SEGMENT_BYTES: z.coerce.number().int().min(4096).max(2 ** 31).default(DEFAULT_SEGMENT_BYTES),
    OPENAI_BASE_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
    OPENAI_API_KEY: z.preprocess(emptyAsUndefined, z.string().optional()),
    LLMEVAL_PYTHON: z.preprocess(emptyAsUndefined, z.string().optional()),
    TRACECHECK_JUDGE_MODEL: z.preprocess(emptyAsUndefined, z.string().optional()),
    TRACECHECK_JUDGE_TIMEOUT_MS: positiveInt.default(30_000),
    TRACECHECK_JUDGE_CONCURRENCY: positiveInt.default(4),
    // Two store batches share these in turn (one written while the next gathers): 1024 gives batches
    // of up to 500 units; at 256 they were about 128, and DuckDB spent a third more CPU a unit. On
    // ClickHouse a window of 256 filled behind slow INSERTs at 2,000 spans/s and stopped the consumer.
    TRACECHECK_SCORER_CONCURRENCY: positiveInt.default(DEFAULT_SCORER_CONCURRENCY),
    TRACECHECK_JUDGE_RATE_PER_MINUTE: positiveInt.default(600),
    TRACECHECK_JUDGE_DEADLINE_MS: positiveInt.default(120_000),
    TRACECHECK_JUDGE_BREAKER_FAILURES: positiveInt.default(5),
    TRACECHECK_JUDGE_BREAKER_COOLDOWN_MS: positiveInt.default(30_000),
    TRACECHECK_JUDGE_CACHE_ENTRIES: z.coerce.number().int().nonnegative().default(10_000),
    TRACECHECK_JUDGE_PRICES: z.preprocess(emptyAsUndefined, z.string().optional()).pipe(
      z
        .string()
        .transform((text, ctx) => {
          try {
            return JSON.parse(text) as unknown;
          } catch {
            ctx.addIssue({ code: 'custom', message: 'must be JSON: {"model": [input USD per 1M tokens, output USD per 1M tokens]}' });
            return z.NEVER;
          }
        })
        .pipe(z.record(z.string(), z.tuple([z.number().nonnegative(), z.number().nonnegative()])))
        .optional(),
    ),
    TRACECHECK_SESSION_IDLE_MS: positiveInt.default(15 * 60_000),
    TRACECHECK_SESSION_CHECKS: z.string().default(''),
    TRACECHECK_MONITORS_FILE: z.preprocess(emptyAsUndefined, z.string().optional()),
    TRACECHECK_PRICES_FILE: z.preprocess(emptyAsUndefined, z.string().optional()),
    TRACECHECK_CONFIG_POLL_MS: z.coerce.number().int().min(100).default(2_000),
    TRACECHECK_SIMULATION_WAIT_MS: z.coerce.number().int().nonnegative().default(60_000),
    TRACECHECK_OTLP_HTTP_PORT: port.default(4318),
    TRACECHECK_OTLP_GRPC_PORT: port.default(4317),
    TRACECHECK_API_PORT: port.default(8080),
    // Unset: each service its own default (DEFAULT_METRICS_PORTS), so that services started together never collide.
    TRACECHECK_METRICS_PORT: z.preprocess(emptyAsUndefined, port.optional()),
    TRACECHECK_HOST: z.string().default('127.0.0.1'),
    TRACECHECK_MAX_BODY_BYTES: positiveInt.default(20 * 1024 * 1024),
    TRACECHECK_MAX_ATTRIBUTE_BYTES: positiveInt.default(1024 * 1024),
    TRACECHECK_MAX_SPANS_PER_REQUEST: positiveInt.default(10_000),
    TRACECHECK_MAX_RECORD_BYTES: positiveInt.default(DEFAULT_MAX_RECORD_BYTES),
    TRACECHECK_TRACE_GRACE_MS: z.coerce.number().int().nonnegative().default(2_000),
    TRACECHECK_TRACE_COMPLETE_GRACE_MS: z.coerce.number().int().nonnegative().max(60_000).default(DEFAULT_TRACE_COMPLETE_GRACE_MS),
    TRACECHECK_TRACE_MAX_OPEN_MS: positiveInt.default(300_000),
    TRACECHECK_TRACE_ENTRY_GRACE_MS: z.coerce.number().int().nonnegative().default(DEFAULT_TRACE_ENTRY_GRACE_MS),
    // Span records the assembler reads back below its commit at start (0: none), see docs/guarantees.md.
    TRACECHECK_TRACE_REPLAY_RECORDS: z.coerce.number().int().nonnegative().default(100_000),
    TRACECHECK_MAX_SPANS_PER_TRACE: positiveInt.default(DEFAULT_MAX_SPANS_PER_TRACE),
    TRACECHECK_MAX_OPEN_TRACES: positiveInt.default(DEFAULT_OPEN_CAPS.maxOpenTraces),
    TRACECHECK_MAX_OPEN_TRACE_BYTES: positiveInt.default(DEFAULT_OPEN_CAPS.maxOpenBytes),
    TRACECHECK_MAX_ROOTLESS_TRACES: positiveInt.default(DEFAULT_OPEN_CAPS.maxRootlessTraces),
    ...PROJECT_SHARES_ENV,
    ...LANGFUSE_KEYS_ENV,
    ...CONTENT_REF_ENV,
    ...EVALUATION_EXPORT_ENV,
    TRACECHECK_CHECKS: z.string().default('function_result_present,task_completed'),
    TRACECHECK_CHECK_DEFINITIONS: z.preprocess(emptyAsUndefined, z.string().optional()),
    TRACECHECK_SANDBOX_PROCESSES: z.coerce.number().int().min(1).max(64).default(2),
    TRACECHECK_SANDBOX_TOTAL_PROCESSES: z.coerce.number().int().min(1).max(256).default(4),
    TRACECHECK_SANDBOX_MEMORY_MB: z.coerce.number().int().min(128).max(8192).default(256),
    TRACECHECK_ALERT_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000),
    // Webhook/Slack targets that resolve to loopback, private, link-local, CGNAT or metadata
    // addresses are refused unless listed here: host names, addresses or ranges, comma-separated.
    TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS: addressList,
    // Email notifications go through this one SMTP server: smtp://[user:password@]host[:port]
    // (STARTTLS required unless TRACECHECK_SMTP_TLS=none) or smtps:// (TLS from the start).
    TRACECHECK_SMTP_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^smtps?$/, message: 'must be smtp://… or smtps://…' }).optional()),
    TRACECHECK_SMTP_FROM: z.string().min(3).default('tracecheck <tracecheck@localhost>'),
    TRACECHECK_SMTP_TLS: z.enum(['starttls', 'none']).default('starttls'),
    TRACECHECK_SMTP_CA_FILE: z.preprocess(emptyAsUndefined, z.string().optional()),
    // What one project's admins may do with the operator's SMTP server (docs/alerts.md#email).
    TRACECHECK_ALERT_MAX_RULES: z.coerce.number().int().min(1).max(100_000).default(100),
    TRACECHECK_EMAIL_MAX_RECIPIENTS: z.coerce.number().int().min(0).max(10_000).default(20),
    TRACECHECK_EMAIL_ALLOWED_DOMAINS: domainList,
    TRACECHECK_EMAIL_MIN_REMIND_MINUTES: z.coerce.number().int().min(1).max(10_080).default(15),
    // Proxies (addresses or ranges) whose X-Forwarded-For and X-Forwarded-Proto the API believes:
    // the client's address for throttling, and https for the login cookie's Secure flag.
    TRACECHECK_TRUSTED_PROXIES: addressList,
    // Bearer token for GET /metrics once API keys exist (unset: 401 then); with no key at all it is open.
    TRACECHECK_METRICS_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(16, 'at least 16 characters').optional()),
    // redact by default: a secret that reached the store once is in every backup of it; see docs/privacy.md.
    TRACECHECK_REDACTION: z.enum(REDACTION_MODES).default('redact'),
    TRACECHECK_REDACTION_RULES: z.preprocess(emptyAsUndefined, redactionRulesFromJson.optional()),
    TRACECHECK_REDACTION_KEY: z.preprocess(emptyAsUndefined, z.string().min(16, 'at least 16 characters').optional()),
    // Unset: keep everything. Projects may set their own through the API, only shorter unless allowed.
    TRACECHECK_RETENTION_DAYS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(36_500).optional()),
    TRACECHECK_RETENTION_INTERVAL_MS: z.coerce.number().int().min(1_000).default(60 * 60_000),
    TRACECHECK_RETENTION_ALLOW_LONGER: z.enum(['true', 'false']).default('false'),
    // No default: a command without it logs at its own level (see cli/command-logger.ts).
    TRACECHECK_LOG_LEVEL: z.preprocess(emptyAsUndefined, z.enum(LOG_LEVELS).optional()),
  })
  .superRefine((c, ctx) => {
    if (c.TRACECHECK_JUDGE_MODEL && !c.OPENAI_BASE_URL && !c.OPENAI_API_KEY) {
      ctx.addIssue({ code: 'custom', path: ['OPENAI_BASE_URL'], message: 'TRACECHECK_JUDGE_MODEL is set but neither OPENAI_BASE_URL nor OPENAI_API_KEY is' });
    }
  });

export interface Config {
  kafka: { brokers: string[]; clientId: string; lagIntervalMs: number; maxRequestBytes: number; sessionTimeoutMs: number } | null;
  /** Prefix of topic and consumer group names (`<prefix>.spans`, `<prefix>-scorer`), so that deployments can share a cluster. */
  kafkaPrefix: string;
  /** A consumer with at least this many records not yet committed is reported behind (/healthz, a log line a minute). */
  lagBehindRecords: number;
  clickhouse: { url: string; database: string; user: string; password: string; cluster: string | undefined; insertQuorum: number | undefined } | null;
  dataDir: string;
  /** DuckDB's memory limit in embedded mode; null: DuckDB's own (80% of RAM). */
  duckdbMemoryLimit: string | null;
  /**
   * The embedded (in-process) bus's log: `dir` defaults to `<data dir>/bus`; `fsync` off trades
   * the survival of acknowledged records on power loss for throughput; segments are deleted whole.
   */
  bus: { dir: string; fsync: boolean; segmentBytes: number };
  /**
   * Where the assembler keeps the records of open traces and sessions, off the heap: segment files
   * in a subdirectory per process (default under the OS temp directory), never read after a restart.
   */
  spill: { dir: string; segmentBytes: number };
  /** The judge's endpoint and model; how calls are run (timeout, concurrency…) is `judgeOps`. */
  judge: { baseUrl: string | undefined; apiKey: string; model: string } | null;
  /** How every judge call is run (pool, rate, timeout, deadline, breaker, cache), judge configured or not. */
  judgeOps: { concurrency: number; ratePerMinute: number; timeoutMs: number; deadlineMs: number; breakerFailures: number; breakerCooldownMs: number; cacheEntries: number };
  /** USD per 1M input/output tokens by model, added to the built-in table (judge spend budgets, `cost_usd`). */
  judgePrices: Record<string, [number, number]>;
  /** Why model checks will not run, when `judge` is null. */
  judgeUnavailableReason: string | null;
  host: string;
  /**
   * `metrics`: GET /metrics of a process that runs neither the API nor the collector; null: the
   * default of the service it runs (metricsPortFor).
   */
  ports: { otlpHttp: number; otlpGrpc: number; api: number; metrics: number | null };
  limits: { maxBodyBytes: number; maxAttributeBytes: number; maxSpansPerRequest: number; maxRecordBytes: number };
  /** `maxSpansPerTrace`: spans kept per trace; past it the unit is flagged truncated. */
  assembler: {
    traceGraceMs: number;
    traceCompleteGraceMs: number;
    traceEntryGraceMs: number;
    traceMaxOpenMs: number;
    maxSpansPerTrace: number;
    /** Span records read back below the commit at start, kept as published traces (0: none). */
    replayRecords: number;
    /** Caps on open traces; past one the oldest close at once (see the assembler's open-caps.ts). */
    caps: { maxOpenTraces: number; maxOpenBytes: number; maxRootlessTraces: number };
    /** Open traces (ready ones not yet published included) past which the assembler stops reading. */
    holdOpenTraces: number;
  };
  /** Each project's share of the open traces: the collector's 429 and the assembler's caps (project-shares.ts). */
  projectShares: ProjectShares;
  /** Records of a topic its readers have not read past which sends to it are refused (429): both modes. */
  backlogMaxRecords: number;
  /** Embedded: how long a record may wait unread by a running stage before the collector answers 429. */
  maxLagMs: number;
  /** Worker threads converting the collector's exports; 0: on the main thread. */
  collectorWorkers: number;
  /** A service (`tracecheck collector|assembler|scorer|api|alerter`) exits this long after SIGTERM at the latest. */
  shutdownTimeoutMs: number;
  /** A session closes this long after its last trace (or at an end marker). */
  sessionIdleMs: number;
  /** Checks on trace units when no monitor applies (the default monitor). */
  checks: string[];
  /** Checks on session units when no monitor applies. */
  sessionChecks: string[];
  /** A YAML file of monitors, applied to every project next to the stored ones. */
  monitorsFile: string | null;
  /** JSON prices of model calls laid over the built-in table (shared/engines/pricing); null: the built-in table. */
  pricesFile: string | null;
  /** How often scorers look for changed monitors and user checks in the store. */
  configPollMs: number;
  /** How long a unit with a simulation id waits for the simulation's own dialog. */
  simulationWaitMs: number;
  /** JSON Lines of user check definitions (as `tracecheck checks upload --out` writes them). */
  checkDefinitionsFile: string | null;
  /** Users' code checks: processes per language and project, in all, and each JS one's OS data limit. */
  sandbox: { processes: number; totalProcesses: number; memoryMb: number };
  /** Units one scorer scores at once. */
  scorerConcurrency: number;
  /** How often the alerter evaluates its rules; the non-public targets it may call anyway. */
  alerter: {
    intervalMs: number;
    allowPrivateTargets: AddressList;
    /** The SMTP server email notifications go through; null: email targets fail, saying so. */
    smtp: { url: string; from: string; tls: 'starttls' | 'none'; caFile: string | null } | null;
    /** Rules per project, and what their email may reach and how often (shared/engines/alerts' AlertLimits). */
    limits: { maxRules: number; maxEmailRecipients: number; emailDomains: string[]; minEmailRemindMs: number };
  };
  /** Proxies whose forwarded client address and protocol the API believes. */
  trustedProxies: AddressList;
  /** Langfuse SDK key pairs the collector takes as these ingest keys (docs/migrating-from-langfuse.md). */
  langfuseKeys: LangfuseKeyPair[];
  /** Where the scorer may fetch messages recorded by reference (empty allow-list: never). */
  contentRefs: ContentRefSettings;
  /** The bearer token that reads GET /metrics once keys exist; null: nobody then. */
  metricsToken: string | null;
  /** TRACECHECK_LOG_LEVEL; null: unset, each command logs at its own default. */
  logLevel: LogLevel | null;
  /** LLMEVAL_PYTHON: the interpreter `tracecheck eval` runs suite code in; null: `python3` on PATH. */
  evalPython: string | null;
  /** What the collector replaces in spans and log records before the bus; `key` null: a random one per process. */
  redaction: { mode: RedactionMode; rules: RedactionRule[]; key: string | null };
  /** Days rows are kept (null: forever, but for projects with their own); how often old ones are removed. */
  retention: { days: number | null; intervalMs: number; allowLonger: boolean };
  /** Where every score is also sent as a `gen_ai.evaluation.result` log record; null: nowhere. */
  evaluationExport: EvaluationExportConfig | null;
}

export class ConfigError extends PermanentError {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; throws ConfigError listing every problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`));
  }
  const c = parsed.data;
  const judgeConfigured = Boolean(c.OPENAI_BASE_URL ?? c.OPENAI_API_KEY);
  return {
    kafka: c.TRACECHECK_KAFKA_BROKERS
      ? { brokers: c.TRACECHECK_KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean), clientId: c.TRACECHECK_KAFKA_CLIENT_ID, lagIntervalMs: c.TRACECHECK_LAG_INTERVAL_MS, maxRequestBytes: c.TRACECHECK_KAFKA_MAX_REQUEST_BYTES, sessionTimeoutMs: c.TRACECHECK_KAFKA_SESSION_TIMEOUT_MS }
      : null,
    kafkaPrefix: c.TRACECHECK_KAFKA_PREFIX,
    lagBehindRecords: c.TRACECHECK_LAG_BEHIND_RECORDS,
    clickhouse: c.TRACECHECK_CLICKHOUSE_URL
      ? {
          url: c.TRACECHECK_CLICKHOUSE_URL,
          database: c.TRACECHECK_CLICKHOUSE_DATABASE,
          user: c.TRACECHECK_CLICKHOUSE_USER,
          password: c.TRACECHECK_CLICKHOUSE_PASSWORD,
          cluster: c.TRACECHECK_CLICKHOUSE_CLUSTER,
          insertQuorum: c.TRACECHECK_CLICKHOUSE_INSERT_QUORUM > 0 ? c.TRACECHECK_CLICKHOUSE_INSERT_QUORUM : undefined,
        }
      : null,
    dataDir: c.TRACECHECK_DATA_DIR,
    duckdbMemoryLimit: c.TRACECHECK_DUCKDB_MEMORY_LIMIT,
    bus: { dir: c.TRACECHECK_BUS_DIR ?? join(c.TRACECHECK_DATA_DIR, 'bus'), fsync: c.TRACECHECK_BUS_FSYNC, segmentBytes: c.TRACECHECK_BUS_SEGMENT_BYTES },
    spill: { dir: c.TRACECHECK_SPILL_DIR ?? join(tmpdir(), 'tracecheck-spill'), segmentBytes: c.TRACECHECK_SPILL_SEGMENT_BYTES },
    judge: judgeConfigured
      ? {
          baseUrl: c.OPENAI_BASE_URL,
          // A local OpenAI-compatible server needs no key, but the client insists on one.
          apiKey: c.OPENAI_API_KEY ?? 'not-needed',
          model: c.TRACECHECK_JUDGE_MODEL ?? 'gpt-4o-mini',
        }
      : null,
    judgeOps: {
      concurrency: c.TRACECHECK_JUDGE_CONCURRENCY,
      ratePerMinute: c.TRACECHECK_JUDGE_RATE_PER_MINUTE,
      timeoutMs: c.TRACECHECK_JUDGE_TIMEOUT_MS,
      deadlineMs: c.TRACECHECK_JUDGE_DEADLINE_MS,
      breakerFailures: c.TRACECHECK_JUDGE_BREAKER_FAILURES,
      breakerCooldownMs: c.TRACECHECK_JUDGE_BREAKER_COOLDOWN_MS,
      cacheEntries: c.TRACECHECK_JUDGE_CACHE_ENTRIES,
    },
    judgePrices: c.TRACECHECK_JUDGE_PRICES ?? {},
    judgeUnavailableReason: judgeConfigured ? null : 'no judge configured: set OPENAI_BASE_URL (or OPENAI_API_KEY) to run model checks',
    host: c.TRACECHECK_HOST,
    ports: { otlpHttp: c.TRACECHECK_OTLP_HTTP_PORT, otlpGrpc: c.TRACECHECK_OTLP_GRPC_PORT, api: c.TRACECHECK_API_PORT, metrics: c.TRACECHECK_METRICS_PORT ?? null },
    limits: {
      maxBodyBytes: c.TRACECHECK_MAX_BODY_BYTES,
      maxAttributeBytes: c.TRACECHECK_MAX_ATTRIBUTE_BYTES,
      maxSpansPerRequest: c.TRACECHECK_MAX_SPANS_PER_REQUEST,
      maxRecordBytes: c.TRACECHECK_MAX_RECORD_BYTES,
    },
    assembler: { traceGraceMs: c.TRACECHECK_TRACE_GRACE_MS, traceCompleteGraceMs: Math.min(c.TRACECHECK_TRACE_COMPLETE_GRACE_MS, c.TRACECHECK_TRACE_GRACE_MS), traceEntryGraceMs: c.TRACECHECK_TRACE_ENTRY_GRACE_MS, traceMaxOpenMs: c.TRACECHECK_TRACE_MAX_OPEN_MS,
      maxSpansPerTrace: c.TRACECHECK_MAX_SPANS_PER_TRACE,
      replayRecords: c.TRACECHECK_TRACE_REPLAY_RECORDS,
      holdOpenTraces: c.TRACECHECK_ASSEMBLER_HOLD_OPEN_TRACES,
      caps: { maxOpenTraces: c.TRACECHECK_MAX_OPEN_TRACES, maxOpenBytes: c.TRACECHECK_MAX_OPEN_TRACE_BYTES, maxRootlessTraces: c.TRACECHECK_MAX_ROOTLESS_TRACES },
    },
    projectShares: projectSharesOf(c),
    backlogMaxRecords: c.TRACECHECK_BACKLOG_MAX_RECORDS,
    maxLagMs: c.TRACECHECK_MAX_LAG_MS,
    collectorWorkers: c.TRACECHECK_COLLECTOR_WORKERS ?? defaultCollectorWorkers(),
    shutdownTimeoutMs: c.TRACECHECK_SHUTDOWN_TIMEOUT_MS,
    sessionIdleMs: c.TRACECHECK_SESSION_IDLE_MS,
    checks: c.TRACECHECK_CHECKS.split(',').map((s) => s.trim()).filter(Boolean),
    sessionChecks: c.TRACECHECK_SESSION_CHECKS.split(',').map((s) => s.trim()).filter(Boolean),
    monitorsFile: c.TRACECHECK_MONITORS_FILE ?? null,
    pricesFile: c.TRACECHECK_PRICES_FILE ?? null,
    configPollMs: c.TRACECHECK_CONFIG_POLL_MS,
    simulationWaitMs: c.TRACECHECK_SIMULATION_WAIT_MS,
    checkDefinitionsFile: c.TRACECHECK_CHECK_DEFINITIONS ?? null,
    sandbox: { processes: c.TRACECHECK_SANDBOX_PROCESSES, totalProcesses: Math.max(c.TRACECHECK_SANDBOX_PROCESSES, c.TRACECHECK_SANDBOX_TOTAL_PROCESSES), memoryMb: c.TRACECHECK_SANDBOX_MEMORY_MB },
    scorerConcurrency: c.TRACECHECK_SCORER_CONCURRENCY,
    alerter: {
      intervalMs: c.TRACECHECK_ALERT_INTERVAL_MS,
      allowPrivateTargets: c.TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS,
      smtp: c.TRACECHECK_SMTP_URL ? { url: c.TRACECHECK_SMTP_URL, from: c.TRACECHECK_SMTP_FROM, tls: c.TRACECHECK_SMTP_TLS, caFile: c.TRACECHECK_SMTP_CA_FILE ?? null } : null,
      limits: { maxRules: c.TRACECHECK_ALERT_MAX_RULES, maxEmailRecipients: c.TRACECHECK_EMAIL_MAX_RECIPIENTS, emailDomains: c.TRACECHECK_EMAIL_ALLOWED_DOMAINS, minEmailRemindMs: c.TRACECHECK_EMAIL_MIN_REMIND_MINUTES * 60_000 },
    },
    trustedProxies: c.TRACECHECK_TRUSTED_PROXIES,
    langfuseKeys: c.TRACECHECK_LANGFUSE_KEYS,
    contentRefs: contentRefSettingsOf(c),
    metricsToken: c.TRACECHECK_METRICS_TOKEN ?? null,
    logLevel: c.TRACECHECK_LOG_LEVEL ?? null,
    evalPython: c.LLMEVAL_PYTHON ?? null,
    retention: { days: c.TRACECHECK_RETENTION_DAYS ?? null, intervalMs: c.TRACECHECK_RETENTION_INTERVAL_MS, allowLonger: c.TRACECHECK_RETENTION_ALLOW_LONGER === 'true' },
    redaction: { mode: c.TRACECHECK_REDACTION, rules: c.TRACECHECK_REDACTION_RULES ?? [], key: c.TRACECHECK_REDACTION_KEY ?? null },
    evaluationExport: evaluationExportOf(c),
  };
}

/**
 * One core is kept for the main thread (HTTP, the bus, and in embedded mode the other stages); the
 * rest convert exports, up to 4 (more did not pay: the main thread receives their records).
 */
function defaultCollectorWorkers(): number {
  return Math.max(0, Math.min(4, availableParallelism() - 1));
}
