// The only reader of process.env. Each slice (wfm, export, s3, redis, queue, schedule, api, log)
// is a zod schema whose keys are documented here; README's configuration table lists the same keys
// (test/config.test.ts fails when they disagree). A slice is parsed once, at the edge of the command
// that needs it, and frozen; a bad value stops the program with one line that names the variable
// and never a secret (redact-secrets.ts: the value of a secret-named variable is not shown, other
// values lose URL userinfo and password=… parameters, and so does zod's own text).

import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseDestination } from './destinations/parse-destination.js';
import { ConfigError, ShiftExportError } from './errors.js';
import { redactSecrets, secretValuesOf, shownValue } from './redact-secrets.js';

type Env = Readonly<Record<string, string | undefined>>;

interface VarDoc {
  readonly default: string;
  readonly description: string;
}

/** Every environment variable shift-export reads: default (as text) and meaning. */
export const ENV_DOCS = {
  WFM_BASE_URL: {
    default: '(none; the demo starts a sandbox)',
    description:
      'Base URL of the WFM API, e.g. https://wfm.example.com (paths start with /v1); without credentials, query or fragment.',
  },
  WFM_TOKEN: {
    default: '(none)',
    description:
      'Bearer token for the WFM API: printable ASCII without spaces or line breaks (it goes into a header). Never logged.',
  },
  WFM_TOKEN_FILE: {
    default: '(none)',
    description:
      'File holding the bearer token (used when WFM_TOKEN is unset); surrounding whitespace is ignored, a line break inside is an error.',
  },
  WFM_CONNECT_TIMEOUT_MS: { default: '10000', description: 'TCP/TLS connect timeout of each request.' },
  WFM_HEADERS_TIMEOUT_MS: { default: '60000', description: 'Time to wait for response headers.' },
  WFM_BODY_TIMEOUT_MS: {
    default: '60000',
    description: 'Longest silence between two chunks of a response body.',
  },
  WFM_READ_DEADLINE_MS: {
    default: '1800000',
    description:
      'Longest time one request may take, headers and whole body (one report attempt or page); past it the attempt fails retryably (WFM_TIMEOUT) and the read resumes.',
  },
  WFM_READ_MIN_BYTES_PER_SEC: {
    default: '1024',
    description:
      'Slowest body accepted: fewer bytes a second than this, averaged over WFM_READ_RATE_WINDOW_MS of waiting for the upstream, fails the attempt retryably (WFM_TIMEOUT). 0 disables.',
  },
  WFM_READ_RATE_WINDOW_MS: {
    default: '60000',
    description: 'Time spent waiting for body bytes over which WFM_READ_MIN_BYTES_PER_SEC is averaged.',
  },
  WFM_COMPRESSION: {
    default: 'true',
    description:
      'Ask the WFM API for a compressed body (Accept-Encoding: gzip, deflate, br), decoded while it streams; false asks for identity.',
  },
  WFM_CONNECTIONS: { default: '4', description: 'Keep-alive connections in the pool to the WFM API.' },
  WFM_RETRY_ATTEMPTS: {
    default: '5',
    description:
      'Attempts per request (1 = no retry) for GET, PUT and DELETE on network errors, timeouts, 408, 429, 500, 502, 503, 504. POST is never retried.',
  },
  WFM_RETRY_BASE_DELAY_MS: {
    default: '500',
    description: 'First retry delay; doubles each attempt, with full jitter.',
  },
  WFM_RETRY_MAX_DELAY_MS: {
    default: '30000',
    description: 'Upper bound of one retry delay (also caps Retry-After).',
  },
  WFM_RETRY_MAX_TOTAL_MS: {
    default: '300000',
    description: 'No retry starts after this much time since the first attempt.',
  },
  WFM_PAGING: {
    default: 'none',
    description:
      'How the report is read: none (one streamed request), keyset (order=id.asc&id=gt.<last>&limit=N) or offset (order=id.asc&offset=K&limit=N).',
  },
  WFM_PAGE_SIZE: { default: '50000', description: 'Rows per page when WFM_PAGING is keyset or offset.' },
  WFM_WINDOW_QUERY: {
    default: 'start_time=gte.{from}&start_time=lt.{to}',
    description:
      'Query template of the time-window filter; {from} and {to} become UTC LocalDateTimes. Empty: no filter (rows outside the period are still dropped).',
  },
  WFM_COUNT_EXACT: {
    default: 'true',
    description:
      'Send Prefer: count=exact and fail (retryable) when fewer rows arrive than Content-Range announced.',
  },
  WFM_MAX_BODY_BYTES: {
    default: '17179869184',
    description: 'Largest report body accepted (16 GiB); a longer body is an error, not a silent cut.',
  },
  WFM_MAX_ROW_BYTES: { default: '16777216', description: 'Largest single report row accepted (16 MiB).' },
  EXPORT_DEST: { default: './exports', description: 'Where exports go: a folder, or s3://bucket/prefix.' },
  EXPORT_DEST_ALLOW: {
    default: '(none)',
    description:
      'Comma-separated further roots a job or request may write to besides EXPORT_DEST: folders (compared by real path, symlinks resolved) and/or s3://bucket/prefix (that prefix or below it). Workers refuse any other destination.',
  },
  EXPORT_FORMATS: {
    default: 'csv,xlsx',
    description: 'Formats written when none are asked for: csv, xlsx or both.',
  },
  EXPORT_MAX_DAYS: { default: '31', description: 'Longest period one export may cover, in days.' },
  CSV_DELIMITER: {
    default: ',',
    description: 'CSV field delimiter: "," or ";" (what Excel expects in many European locales) or "tab".',
  },
  CSV_BOM: {
    default: 'true',
    description: 'Start CSV files with a UTF-8 byte order mark, so Excel reads them as UTF-8.',
  },
  XLSX_MATCH_RATE_THRESHOLD: {
    default: '0.8',
    description: 'Start-match rates below this (0..1) are highlighted in the workbook.',
  },
  S3_ENDPOINT: {
    default: '(AWS)',
    description: 'S3-compatible endpoint URL, e.g. http://127.0.0.1:9000 for MinIO.',
  },
  S3_REGION: { default: 'us-east-1', description: 'S3 region.' },
  S3_FORCE_PATH_STYLE: {
    default: 'false',
    description: 'Use path-style bucket addressing (MinIO and most S3-compatible servers).',
  },
  S3_SSE: {
    default: '(none)',
    description: 'Server-side encryption of uploaded objects: AES256 or aws:kms.',
  },
  S3_SSE_KMS_KEY_ID: { default: '(none)', description: 'KMS key id when S3_SSE is aws:kms.' },
  S3_PART_SIZE_MB: {
    default: '8',
    description: 'Multipart upload part size (5..5120 MiB). Memory per file is about 4 parts.',
  },
  REDIS_URL: {
    default: 'redis://127.0.0.1:6379',
    description: 'Redis of the job queue: redis://[user:password@]host[:port][/db] or rediss://… (TLS).',
  },
  QUEUE_PREFIX: {
    default: '{shift-export}',
    description: 'BullMQ key prefix (a hash tag, so it works on Redis Cluster).',
  },
  REDIS_CONNECT_TIMEOUT_MS: {
    default: '10000',
    description:
      'How long a command, worker or API waits for Redis at start before it stops with a clear error.',
  },
  WORKER_LOCK_DURATION_MS: {
    default: '30000',
    description:
      'Lock of a running job, renewed every half of it. A worker that dies (SIGKILL, crash) leaves its job locked this long; then another worker takes it over.',
  },
  WORKER_STALLED_INTERVAL_MS: {
    default: '30000',
    description:
      'How often each worker looks for stalled jobs (whose lock expired) and puts them back in the queue.',
  },
  WORKER_CONCURRENCY: { default: '1', description: 'Exports one worker process runs at once.' },
  JOB_ATTEMPTS: { default: '5', description: 'Attempts of a job whose failure is transient.' },
  JOB_BACKOFF_MS: {
    default: '30000',
    description:
      'First retry delay of a failed job; doubles each attempt, half fixed and half random, at most 1 h.',
  },
  SHUTDOWN_GRACE_MS: {
    default: '60000',
    description:
      'On SIGTERM/SIGINT, how long a running export may go on before it is aborted and handed back.',
  },
  NIGHTLY_ENABLED: {
    default: 'true',
    description:
      'Whether the worker upserts the nightly schedule; false removes it (give every worker the same value).',
  },
  NIGHTLY_CRON: { default: '0 3 * * *', description: 'Cron pattern of the nightly export.' },
  NIGHTLY_TZ: { default: 'UTC', description: 'IANA time zone of NIGHTLY_CRON and of "yesterday".' },
  LOOKBACK_DAYS: {
    default: '2',
    description: 'Days before yesterday that each nightly run exports again (late shifts).',
  },
  API_HOST: { default: '0.0.0.0', description: 'Address the control API listens on.' },
  API_PORT: { default: '3000', description: 'Port of the control API.' },
  API_TOKENS: {
    default: '(none: the API refuses to start)',
    description: 'Comma-separated bearer tokens accepted by the control API and dashboard.',
  },
  API_BODY_LIMIT_BYTES: { default: '16384', description: 'Largest request body the control API accepts.' },
  DASHBOARD_READ_ONLY: {
    default: 'true',
    description:
      'Bull Board at /admin/queues only shows the queue; false enables its write actions (add, retry, clean, remove, update data, pause, empty, obliterate).',
  },
  LOG_LEVEL: {
    default: 'info',
    description: 'pino level: fatal, error, warn, info, debug, trace or silent.',
  },
} as const satisfies Record<string, VarDoc>;

export type EnvName = keyof typeof ENV_DOCS;

// --- small typed readers -------------------------------------------------------------------

const intIn = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
/** `scheme://user[:password]@…`, even when the rest would not parse as a URL. */
const hasUserinfo = (text: string): boolean => /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(text);
/**
 * The base URL of a service. Credentials and queries are refused at start: they would be sent with
 * every request, logged with every URL and end up in the manifest's `source.base_url`, which
 * refuses them only after the whole export ran. The WFM token goes in WFM_TOKEN, S3 credentials
 * come from the AWS chain.
 */
const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must start with http:// or https://')
  .refine((u) => !hasUserinfo(u), 'must not contain credentials (user:password@)')
  .refine((u) => !/[?#]/.test(u), 'must not have a query (?…) or a fragment (#…)')
  .transform((u) => u.replace(/\/+$/, ''));
/**
 * What a bearer token, a host name, a region or a key id can hold: printable ASCII, no space. A CR
 * or LF in a token would otherwise fail every request as a (retryable) network error.
 */
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const visibleAscii = (what: string) =>
  z.string().regex(VISIBLE_ASCII, `must be printable ASCII without spaces or line breaks (${what})`);
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** Variables whose empty value means something (WFM_WINDOW_QUERY='' asks for no time filter). */
const EMPTY_IS_A_VALUE = new Set(['WFM_WINDOW_QUERY']);

/** Parses one slice: reads each key from env (or the documented default), names the key on error. */
function parseSlice<S extends z.ZodRawShape>(env: Env, shape: S): Readonly<z.infer<z.ZodObject<S>>> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(shape)) {
    const raw = env[key];
    // An empty value means "unset" (the default applies), except where emptiness is itself a
    // documented setting.
    input[key] = raw === undefined || (raw === '' && !EMPTY_IS_A_VALUE.has(key)) ? undefined : raw;
  }
  const result = z.object(shape).safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    const key = String(issue?.path[0] ?? '?');
    const got = input[key];
    const secrets = secretValuesOf(env);
    const shown = got === undefined ? 'unset' : shownValue(key, got, secrets);
    // zod's message may quote the input too: it is redacted like the value.
    const why = redactSecrets(issue?.message ?? 'invalid value', secrets);
    throw new ConfigError(`${key} is invalid (${shown}): ${why}`, { variable: key });
  }
  return Object.freeze(result.data);
}

// --- slices ---------------------------------------------------------------------------------

export const PAGING_MODES = ['none', 'keyset', 'offset'] as const;
export type PagingMode = (typeof PAGING_MODES)[number];

const wfmShape = {
  WFM_BASE_URL: httpUrl.optional(),
  WFM_TOKEN: visibleAscii('it is sent in the Authorization header').optional(),
  WFM_TOKEN_FILE: z.string().optional(),
  WFM_CONNECT_TIMEOUT_MS: intIn(1, 600_000).default(10_000),
  WFM_HEADERS_TIMEOUT_MS: intIn(1, 3_600_000).default(60_000),
  WFM_BODY_TIMEOUT_MS: intIn(1, 3_600_000).default(60_000),
  WFM_READ_DEADLINE_MS: intIn(1, 86_400_000).default(1_800_000),
  WFM_READ_MIN_BYTES_PER_SEC: intIn(0, 1024 ** 3).default(1024),
  WFM_READ_RATE_WINDOW_MS: intIn(100, 3_600_000).default(60_000),
  WFM_COMPRESSION: bool.default(true),
  WFM_CONNECTIONS: intIn(1, 256).default(4),
  WFM_RETRY_ATTEMPTS: intIn(1, 100).default(5),
  WFM_RETRY_BASE_DELAY_MS: intIn(0, 600_000).default(500),
  WFM_RETRY_MAX_DELAY_MS: intIn(0, 3_600_000).default(30_000),
  WFM_RETRY_MAX_TOTAL_MS: intIn(0, 86_400_000).default(300_000),
  WFM_PAGING: z.enum(PAGING_MODES).default('none'),
  WFM_PAGE_SIZE: intIn(1, 10_000_000).default(50_000),
  WFM_WINDOW_QUERY: z
    .string()
    .refine((q) => !CONTROL_CHARACTERS.test(q), 'must not contain control characters')
    .default('start_time=gte.{from}&start_time=lt.{to}'),
  WFM_COUNT_EXACT: bool.default(true),
  WFM_MAX_BODY_BYTES: intIn(1, Number.MAX_SAFE_INTEGER).default(16 * 1024 ** 3),
  WFM_MAX_ROW_BYTES: intIn(64, 1024 ** 3).default(16 * 1024 ** 2),
};

export interface WfmConfig {
  readonly baseUrl: string | undefined;
  /** Resolved from WFM_TOKEN or WFM_TOKEN_FILE; undefined when neither is set. */
  readonly token: string | undefined;
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly read: ReadLimits;
  readonly compression: boolean;
  readonly connections: number;
  readonly retry: RetryPolicy;
  readonly paging: PagingMode;
  readonly pageSize: number;
  readonly windowQuery: string;
  readonly countExact: boolean;
  readonly maxBodyBytes: number;
  readonly maxRowBytes: number;
}

/** Bounds of one request's whole read (WFM_READ_*), enforced by src/wfm/read-guard.ts. */
export interface ReadLimits {
  readonly deadlineMs: number;
  /** 0: no rate guard. */
  readonly minBytesPerSec: number;
  readonly rateWindowMs: number;
}

export interface RetryPolicy {
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxTotalMs: number;
}

export function loadWfmConfig(env: Env = process.env): WfmConfig {
  const c = parseSlice(env, wfmShape);
  const token = c.WFM_TOKEN ?? (c.WFM_TOKEN_FILE === undefined ? undefined : readTokenFile(c.WFM_TOKEN_FILE));
  return Object.freeze({
    baseUrl: c.WFM_BASE_URL,
    token,
    connectTimeoutMs: c.WFM_CONNECT_TIMEOUT_MS,
    headersTimeoutMs: c.WFM_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: c.WFM_BODY_TIMEOUT_MS,
    read: Object.freeze({
      deadlineMs: c.WFM_READ_DEADLINE_MS,
      minBytesPerSec: c.WFM_READ_MIN_BYTES_PER_SEC,
      rateWindowMs: c.WFM_READ_RATE_WINDOW_MS,
    }),
    compression: c.WFM_COMPRESSION,
    connections: c.WFM_CONNECTIONS,
    retry: Object.freeze({
      attempts: c.WFM_RETRY_ATTEMPTS,
      baseDelayMs: c.WFM_RETRY_BASE_DELAY_MS,
      maxDelayMs: c.WFM_RETRY_MAX_DELAY_MS,
      maxTotalMs: c.WFM_RETRY_MAX_TOTAL_MS,
    }),
    paging: c.WFM_PAGING,
    pageSize: c.WFM_PAGE_SIZE,
    windowQuery: c.WFM_WINDOW_QUERY,
    countExact: c.WFM_COUNT_EXACT,
    maxBodyBytes: c.WFM_MAX_BODY_BYTES,
    maxRowBytes: c.WFM_MAX_ROW_BYTES,
  });
}

/**
 * The token in `path`, without surrounding whitespace. The path is not shown in errors: a token
 * pasted into WFM_TOKEN_FILE by mistake would otherwise be printed.
 */
function readTokenFile(path: string): string {
  let token: string;
  try {
    token = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(
      `WFM_TOKEN_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): check the path it names`,
      { variable: 'WFM_TOKEN_FILE' },
    );
  }
  if (token === '')
    throw new ConfigError('WFM_TOKEN_FILE names an empty file', { variable: 'WFM_TOKEN_FILE' });
  if (!VISIBLE_ASCII.test(token)) {
    throw new ConfigError(
      'WFM_TOKEN_FILE holds a token with a line break, space or other character an HTTP header cannot carry (only surrounding whitespace is ignored)',
      { variable: 'WFM_TOKEN_FILE' },
    );
  }
  return token;
}

/** A WfmConfig ready to talk to an upstream: base URL and token are present. */
export type ConnectedWfmConfig = WfmConfig & { readonly baseUrl: string; readonly token: string };

export function requireUpstream(config: WfmConfig): ConnectedWfmConfig {
  if (config.baseUrl === undefined) {
    throw new ConfigError(
      'WFM_BASE_URL is not set: point it at the WFM API (or run `npm start` for the sandbox demo)',
      { variable: 'WFM_BASE_URL' },
    );
  }
  if (config.token === undefined || config.token === '') {
    throw new ConfigError('WFM_TOKEN is not set (nor WFM_TOKEN_FILE): the WFM API needs a bearer token', {
      variable: 'WFM_TOKEN',
    });
  }
  return config as ConnectedWfmConfig;
}

export const EXPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Parses `csv,xlsx` into a sorted, de-duplicated list; `source` names the flag or variable. */
export function parseFormats(text: string, source: string): ExportFormat[] {
  const parts = text
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter((p) => p !== '');
  if (parts.length === 0) throw new ConfigError(`${source} names no format (expected csv, xlsx or csv,xlsx)`);
  for (const p of parts) {
    if (!(EXPORT_FORMATS as readonly string[]).includes(p)) {
      throw new ConfigError(
        `${source} has an unknown format ${JSON.stringify(p)} (expected csv, xlsx or csv,xlsx)`,
      );
    }
  }
  return EXPORT_FORMATS.filter((f) => parts.includes(f));
}

const exportShape = {
  EXPORT_DEST: z
    .string()
    .refine((d) => !hasUserinfo(d), 'must not contain credentials (S3 credentials come from the AWS chain)')
    .refine((d) => !CONTROL_CHARACTERS.test(d), 'must not contain control characters')
    .default('./exports'),
  EXPORT_DEST_ALLOW: z.string().optional(),
  EXPORT_FORMATS: z.string().default('csv,xlsx'),
  EXPORT_MAX_DAYS: intIn(1, 3660).default(31),
  CSV_DELIMITER: z.enum([',', ';', 'tab']).default(','),
  CSV_BOM: bool.default(true),
  XLSX_MATCH_RATE_THRESHOLD: z.coerce.number().min(0).max(1).default(0.8),
};

export interface ExportConfig {
  readonly dest: string;
  /** EXPORT_DEST_ALLOW: further destination roots, each a valid destination text. */
  readonly destAllow: readonly string[];
  readonly formats: readonly ExportFormat[];
  readonly maxDays: number;
  readonly csvDelimiter: ',' | ';' | '\t';
  readonly csvBom: boolean;
  readonly matchRateThreshold: number;
}

export function loadExportConfig(env: Env = process.env): ExportConfig {
  const c = parseSlice(env, exportShape);
  return Object.freeze({
    dest: c.EXPORT_DEST,
    destAllow: Object.freeze(parseDestinationList(c.EXPORT_DEST_ALLOW, 'EXPORT_DEST_ALLOW')),
    formats: Object.freeze(parseFormats(c.EXPORT_FORMATS, 'EXPORT_FORMATS')),
    maxDays: c.EXPORT_MAX_DAYS,
    csvDelimiter: c.CSV_DELIMITER === 'tab' ? '\t' : c.CSV_DELIMITER,
    csvBom: c.CSV_BOM,
    matchRateThreshold: c.XLSX_MATCH_RATE_THRESHOLD,
  });
}

/** A comma-separated list of destinations, each checked now so a typo stops the start, not a job. */
function parseDestinationList(text: string | undefined, variable: string): string[] {
  const entries = (text ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of entries) {
    try {
      parseDestination(entry);
    } catch (error) {
      const why = error instanceof ShiftExportError ? error.message : String(error);
      throw new ConfigError(`${variable} is invalid: ${why}`, { variable });
    }
  }
  return entries;
}

const s3Shape = {
  S3_ENDPOINT: httpUrl.optional(),
  S3_REGION: visibleAscii('a region name such as eu-central-1').default('us-east-1'),
  S3_FORCE_PATH_STYLE: bool.default(false),
  S3_SSE: z.enum(['AES256', 'aws:kms']).optional(),
  S3_SSE_KMS_KEY_ID: visibleAscii('a KMS key id or ARN').optional(),
  S3_PART_SIZE_MB: intIn(5, 5120).default(8),
};

export interface S3Config {
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly forcePathStyle: boolean;
  readonly sse: 'AES256' | 'aws:kms' | undefined;
  readonly sseKmsKeyId: string | undefined;
  readonly partSizeBytes: number;
}

export function loadS3Config(env: Env = process.env): S3Config {
  const c = parseSlice(env, s3Shape);
  return Object.freeze({
    endpoint: c.S3_ENDPOINT,
    region: c.S3_REGION,
    forcePathStyle: c.S3_FORCE_PATH_STYLE,
    sse: c.S3_SSE,
    sseKmsKeyId: c.S3_SSE_KMS_KEY_ID,
    partSizeBytes: c.S3_PART_SIZE_MB * 1024 * 1024,
  });
}

/** What ioredis can connect to; checked here so that a typo is not a TypeError at connect time. */
function isRedisUrl(text: string): boolean {
  if (!/^rediss?:\/\/\S+$/i.test(text)) return false;
  try {
    return new URL(text).hostname !== '';
  } catch {
    return false;
  }
}

const queueShape = {
  REDIS_URL: z
    .string()
    .default('redis://127.0.0.1:6379')
    .refine(isRedisUrl, 'must be a redis:// or rediss:// URL with a host, e.g. redis://127.0.0.1:6379'),
  QUEUE_PREFIX: z
    .string()
    .regex(/^\{[^{}:]+\}$|^[^{}:\s]+$/, 'must be a name without ":" (a {hash-tag} for Redis Cluster)')
    .default('{shift-export}'),
  WORKER_CONCURRENCY: intIn(1, 64).default(1),
  JOB_ATTEMPTS: intIn(1, 100).default(5),
  JOB_BACKOFF_MS: intIn(0, 86_400_000).default(30_000),
  SHUTDOWN_GRACE_MS: intIn(0, 3_600_000).default(60_000),
};

export interface QueueConfig {
  readonly redisUrl: string;
  readonly prefix: string;
  readonly concurrency: number;
  readonly attempts: number;
  readonly backoffMs: number;
  readonly shutdownGraceMs: number;
}

export function loadQueueConfig(env: Env = process.env): QueueConfig {
  const c = parseSlice(env, queueShape);
  return Object.freeze({
    redisUrl: c.REDIS_URL,
    prefix: c.QUEUE_PREFIX,
    concurrency: c.WORKER_CONCURRENCY,
    attempts: c.JOB_ATTEMPTS,
    backoffMs: c.JOB_BACKOFF_MS,
    shutdownGraceMs: c.SHUTDOWN_GRACE_MS,
  });
}

const queueTuningShape = {
  REDIS_CONNECT_TIMEOUT_MS: intIn(100, 600_000).default(10_000),
  WORKER_LOCK_DURATION_MS: intIn(1000, 3_600_000).default(30_000),
  WORKER_STALLED_INTERVAL_MS: intIn(500, 3_600_000).default(30_000),
};

/** How long to wait for Redis, and the job lock and stall-check intervals (short in tests). */
export interface QueueTuning {
  readonly redisConnectTimeoutMs: number;
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
}

export function loadQueueTuning(env: Env = process.env): QueueTuning {
  const c = parseSlice(env, queueTuningShape);
  return Object.freeze({
    redisConnectTimeoutMs: c.REDIS_CONNECT_TIMEOUT_MS,
    lockDurationMs: c.WORKER_LOCK_DURATION_MS,
    stalledIntervalMs: c.WORKER_STALLED_INTERVAL_MS,
  });
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const scheduleShape = {
  NIGHTLY_ENABLED: bool.default(true),
  NIGHTLY_CRON: z
    .string()
    .regex(/^\S+( \S+){4,5}$/, 'must be a cron pattern of 5 or 6 fields')
    .default('0 3 * * *'),
  NIGHTLY_TZ: z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin').default('UTC'),
  LOOKBACK_DAYS: intIn(0, 60).default(2),
};

export interface ScheduleConfig {
  readonly enabled: boolean;
  readonly cron: string;
  readonly tz: string;
  readonly lookbackDays: number;
}

export function loadScheduleConfig(env: Env = process.env): ScheduleConfig {
  const c = parseSlice(env, scheduleShape);
  return Object.freeze({
    enabled: c.NIGHTLY_ENABLED,
    cron: c.NIGHTLY_CRON,
    tz: c.NIGHTLY_TZ,
    lookbackDays: c.LOOKBACK_DAYS,
  });
}

const apiShape = {
  API_HOST: visibleAscii('a host name or address').default('0.0.0.0'),
  API_PORT: intIn(0, 65_535).default(3000),
  API_TOKENS: z.string().optional(),
  API_BODY_LIMIT_BYTES: intIn(64, 1024 * 1024).default(16_384),
  DASHBOARD_READ_ONLY: bool.default(true),
};

export interface ApiConfig {
  readonly host: string;
  readonly port: number;
  readonly tokens: readonly string[];
  readonly bodyLimitBytes: number;
  readonly dashboardReadOnly: boolean;
}

export function loadApiConfig(env: Env = process.env): ApiConfig {
  const c = parseSlice(env, apiShape);
  const tokens = (c.API_TOKENS ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (tokens.length === 0) {
    throw new ConfigError('API_TOKENS is not set: give the control API at least one bearer token', {
      variable: 'API_TOKENS',
    });
  }
  if (!tokens.every((t) => VISIBLE_ASCII.test(t))) {
    // A client could never send such a token in its Authorization header.
    throw new ConfigError(
      'API_TOKENS has a token with a space, line break or other character an HTTP header cannot carry',
      { variable: 'API_TOKENS' },
    );
  }
  return Object.freeze({
    host: c.API_HOST,
    port: c.API_PORT,
    tokens: Object.freeze(tokens),
    bodyLimitBytes: c.API_BODY_LIMIT_BYTES,
    dashboardReadOnly: c.DASHBOARD_READ_ONLY,
  });
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function loadLogLevel(env: Env = process.env): LogLevel {
  return parseSlice(env, { LOG_LEVEL: z.enum(LOG_LEVELS).default('info') }).LOG_LEVEL;
}
