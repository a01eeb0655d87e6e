// The only reader of process.env, and the one place each variable is declared: in the slice (wfm,
// export, s3, queue, queue tuning, schedule, api, log) whose loader reads it, with the config field
// it fills, its zod schema (validation and default) and its description (env-var.ts). The config
// types, ENV_DOCS, README's configuration table and .env.example are derived from these
// declarations (`npm run docs:config` rewrites the two files; test/config.test.ts fails when they
// are stale). A slice is parsed once, at the edge of the command that needs it, and frozen; a bad
// value stops the program with one line that names the variable and never a secret
// (redact-secrets.ts: the value of a secret-named variable is not shown, other values lose URL
// userinfo and password=… parameters, and so does zod's own text).

import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseDestination } from './destination-address.js';
import { ConfigError, ShiftExportError } from './errors.js';
import { hasControlCharacters } from './one-line.js';
import { resolveRedisTarget, type RedisTarget } from './redis-target.js';
import {
  docOf,
  envVar,
  loadDeclared,
  readFileNamedBy,
  variablesOf,
  type Declaration,
  type Env,
  type Loaded,
  type NamesOf,
  type VarDoc,
} from './env-var.js';

// --- small typed readers -------------------------------------------------------------------

const int = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);
const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .transform((v) => v === 'true' || v === '1' || v === 'yes')
    .default(fallback);
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
/** A comma-separated list, trimmed, without empty entries. */
const listOf = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');

// --- wfm ---------------------------------------------------------------------------------------

export const PAGING_MODES = ['none', 'keyset', 'offset'] as const;
export type PagingMode = (typeof PAGING_MODES)[number];

const wfmVariables = {
  baseUrl: envVar(
    'WFM_BASE_URL',
    httpUrl.optional(),
    'Base URL of the WFM API, e.g. https://wfm.example.com (paths start with /v1); without credentials, query or fragment.',
    { docDefault: '(none; the demo starts a sandbox)' },
  ),
  /** Resolved from WFM_TOKEN or WFM_TOKEN_FILE by loadWfmConfig; undefined when neither is set. */
  token: envVar(
    'WFM_TOKEN',
    visibleAscii('it is sent in the Authorization header').optional(),
    'Bearer token for the WFM API: printable ASCII without spaces or line breaks (it goes into a header). Never logged.',
  ),
  tokenFile: envVar(
    'WFM_TOKEN_FILE',
    z.string().optional(),
    'File holding the bearer token (used when WFM_TOKEN is unset); surrounding whitespace is ignored, a line break inside is an error.',
  ),
  connectTimeoutMs: envVar(
    'WFM_CONNECT_TIMEOUT_MS',
    int(1, 600_000, 10_000),
    'TCP/TLS connect timeout of each request.',
  ),
  headersTimeoutMs: envVar(
    'WFM_HEADERS_TIMEOUT_MS',
    int(1, 3_600_000, 60_000),
    'Time to wait for response headers.',
  ),
  bodyTimeoutMs: envVar(
    'WFM_BODY_TIMEOUT_MS',
    int(1, 3_600_000, 60_000),
    'Longest silence between two chunks of a response body.',
  ),
  /** Bounds of one request's whole read, enforced by src/wfm/read-guard.ts. */
  read: {
    deadlineMs: envVar(
      'WFM_READ_DEADLINE_MS',
      int(1, 86_400_000, 1_800_000),
      'Longest time one request may take, headers and whole body (one report attempt or page); past it the attempt fails retryably (WFM_TIMEOUT) and the read resumes.',
    ),
    /** 0: no rate guard. */
    minBytesPerSec: envVar(
      'WFM_READ_MIN_BYTES_PER_SEC',
      int(0, 1024 ** 3, 1024),
      'Slowest body accepted: fewer bytes a second than this, averaged over WFM_READ_RATE_WINDOW_MS of waiting for the upstream, fails the attempt retryably (WFM_TIMEOUT). 0 disables.',
    ),
    rateWindowMs: envVar(
      'WFM_READ_RATE_WINDOW_MS',
      int(100, 3_600_000, 60_000),
      'Time spent waiting for body bytes over which WFM_READ_MIN_BYTES_PER_SEC is averaged.',
    ),
  },
  compression: envVar(
    'WFM_COMPRESSION',
    flag(true),
    'Ask the WFM API for a compressed body (Accept-Encoding: gzip, deflate, br), decoded while it streams; false asks for identity.',
  ),
  connections: envVar(
    'WFM_CONNECTIONS',
    int(1, 256, 4),
    'Keep-alive connections in the pool to the WFM API.',
  ),
  retry: {
    attempts: envVar(
      'WFM_RETRY_ATTEMPTS',
      int(1, 100, 5),
      'Attempts per request (1 = no retry) for GET, PUT and DELETE on network errors, timeouts, 408, 429, 500, 502, 503, 504. POST is never retried.',
    ),
    baseDelayMs: envVar(
      'WFM_RETRY_BASE_DELAY_MS',
      int(0, 600_000, 500),
      'First retry delay; doubles each attempt, with full jitter.',
    ),
    maxDelayMs: envVar(
      'WFM_RETRY_MAX_DELAY_MS',
      int(0, 3_600_000, 30_000),
      'Upper bound of one retry delay (also caps Retry-After).',
    ),
    maxTotalMs: envVar(
      'WFM_RETRY_MAX_TOTAL_MS',
      int(0, 86_400_000, 300_000),
      'No retry starts after this much time since the first attempt.',
    ),
  },
  paging: envVar(
    'WFM_PAGING',
    z.enum(PAGING_MODES).default('none'),
    'How the report is read: none (one streamed request), keyset (order=id.asc&id=gt.<last>&limit=N) or offset (order=id.asc&offset=K&limit=N).',
  ),
  pageSize: envVar(
    'WFM_PAGE_SIZE',
    int(1, 10_000_000, 50_000),
    'Rows per page when WFM_PAGING is keyset or offset.',
  ),
  windowQuery: envVar(
    'WFM_WINDOW_QUERY',
    z
      .string()
      .refine((q) => !hasControlCharacters(q), 'must not contain control characters')
      .default('start_time=gte.{from}&start_time=lt.{to}'),
    'Query template of the time-window filter; {from} and {to} become UTC LocalDateTimes. Empty: no filter (rows outside the period are still dropped).',
    { emptyIsAValue: true },
  ),
  countExact: envVar(
    'WFM_COUNT_EXACT',
    flag(true),
    'Send Prefer: count=exact and fail (retryable) when fewer rows arrive than Content-Range announced.',
  ),
  maxBodyBytes: envVar(
    'WFM_MAX_BODY_BYTES',
    int(1, Number.MAX_SAFE_INTEGER, 16 * 1024 ** 3),
    'Largest report body accepted (16 GiB); a longer body is an error, not a silent cut.',
  ),
  maxRowBytes: envVar(
    'WFM_MAX_ROW_BYTES',
    int(64, 1024 ** 3, 16 * 1024 ** 2),
    'Largest single report row accepted (16 MiB).',
  ),
};

export type WfmConfig = Omit<Loaded<typeof wfmVariables>, 'tokenFile'>;
export type ReadLimits = WfmConfig['read'];
export type RetryPolicy = WfmConfig['retry'];

export function loadWfmConfig(env: Env = process.env): WfmConfig {
  const { tokenFile, ...config } = loadDeclared(env, wfmVariables);
  const token = config.token ?? (tokenFile === undefined ? undefined : readTokenFile(tokenFile));
  return Object.freeze({ ...config, token });
}

/** The WFM token in `path`: one header-safe word. */
function readTokenFile(path: string): string {
  const token = readFileNamedBy('WFM_TOKEN_FILE', path);
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

// --- export --------------------------------------------------------------------------------------

export const EXPORT_FORMATS = ['csv', 'xlsx', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Parses `csv,xlsx,parquet` into a sorted, de-duplicated list; `source` names the flag or variable. */
export function parseFormats(text: string, source: string): ExportFormat[] {
  const parts = text
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter((p) => p !== '');
  if (parts.length === 0)
    throw new ConfigError(
      `${source} names no format (expected csv, xlsx, parquet or a comma-separated list of them)`,
    );
  for (const p of parts) {
    if (!(EXPORT_FORMATS as readonly string[]).includes(p)) {
      throw new ConfigError(
        `${source} has an unknown format ${JSON.stringify(p)} (expected csv, xlsx, parquet or a comma-separated list of them)`,
      );
    }
  }
  return EXPORT_FORMATS.filter((f) => parts.includes(f));
}

/** A comma-separated list of destinations, each checked now so a typo stops the start, not a job. */
function parseDestinationList(text: string | undefined, variable: string): readonly string[] {
  const entries = listOf(text);
  for (const entry of entries) {
    try {
      parseDestination(entry);
    } catch (error) {
      const why = error instanceof ShiftExportError ? error.message : String(error);
      throw new ConfigError(`${variable} is invalid: ${why}`, { variable });
    }
  }
  return Object.freeze(entries);
}

const exportVariables = {
  dest: envVar(
    'EXPORT_DEST',
    z
      .string()
      .refine((d) => !hasUserinfo(d), 'must not contain credentials (S3 credentials come from the AWS chain)')
      .refine((d) => !hasControlCharacters(d), 'must not contain control characters')
      .default('./exports'),
    'Where exports go: a folder, or s3://bucket/prefix.',
  ),
  /** Further destination roots, each a valid destination text. */
  destAllow: envVar(
    'EXPORT_DEST_ALLOW',
    z
      .string()
      .optional()
      .transform((text) => parseDestinationList(text, 'EXPORT_DEST_ALLOW')),
    'Comma-separated further roots a job or request may write to besides EXPORT_DEST: folders (compared by real path, symlinks resolved) and/or s3://bucket/prefix (that prefix or below it). Workers refuse any other destination.',
  ),
  formats: envVar(
    'EXPORT_FORMATS',
    z
      .string()
      .default('csv,xlsx')
      .transform((text): readonly ExportFormat[] => Object.freeze(parseFormats(text, 'EXPORT_FORMATS'))),
    'Formats written when none are asked for: csv, xlsx, parquet, comma-separated.',
  ),
  maxDays: envVar('EXPORT_MAX_DAYS', int(1, 3660, 31), 'Longest period one export may cover, in days.'),
  memoryMb: envVar(
    'EXPORT_MEMORY_MB',
    int(1, 1_048_576, 160),
    'Megabytes the user and shop statistics of one export may hold in memory; beyond, they spill to sorted runs in the temp folder (TMPDIR) and are merged at the end, exact all the same.',
  ),
  /** Resolved by loadExportConfig: undefined here means "as many as there are CPUs". */
  threads: envVar(
    'EXPORT_THREADS',
    z.coerce.number().int().min(1).max(256).optional(),
    "Threads that render an export's Shifts sheet and shifts.csv when it writes a workbook, the export's own thread included (1: that thread alone). A CSV-only export renders on its own thread (a render thread would parse each batch again, which costs more than the CSV it saves). The files are the same bytes whatever the number.",
    { docDefault: 'the CPUs (os.availableParallelism()); in a worker, the CPUs over WORKER_CONCURRENCY' },
  ),
  csvDelimiter: envVar(
    'CSV_DELIMITER',
    z
      .enum([',', ';', 'tab'])
      .default(',')
      .transform((d) => (d === 'tab' ? '\t' : d)),
    'CSV field delimiter: "," or ";" (what Excel expects in many European locales) or "tab".',
  ),
  /** Resolved by loadExportConfig: undefined here means "follow CSV_DELIMITER". */
  csvDecimal: envVar(
    'CSV_DECIMAL',
    z.enum(['.', ',']).optional(),
    'Decimal separator of every non-integer number in the CSV files (hours, rates, medians, coordinates): "." or ",". A "," needs CSV_DELIMITER ";" or "tab".',
    { docDefault: '"," when CSV_DELIMITER is ";", else "."' },
  ),
  csvCompression: envVar(
    'CSV_COMPRESSION',
    z.enum(['none', 'gzip']).default('none'),
    'Compression of the CSV files: "none", or "gzip" to write *.csv.gz (streamed; on S3 stored with Content-Encoding: gzip and Content-Type text/csv).',
  ),
  csvBom: envVar(
    'CSV_BOM',
    flag(true),
    'Start CSV files with a UTF-8 byte order mark, so Excel reads them as UTF-8.',
  ),
  matchRateThreshold: envVar(
    'XLSX_MATCH_RATE_THRESHOLD',
    z.coerce.number().min(0).max(1).default(0.8),
    'Start-match rates below this (0..1) are highlighted in the workbook.',
  ),
};

export type ExportConfig = Omit<Loaded<typeof exportVariables>, 'csvDecimal' | 'threads'> & {
  readonly csvDecimal: '.' | ',';
  readonly threads: number;
};

/**
 * `concurrentExports`: how many exports the process runs at once (a worker's WORKER_CONCURRENCY),
 * among which the CPUs are shared when EXPORT_THREADS is not set.
 */
export function loadExportConfig(env: Env = process.env, concurrentExports = 1): ExportConfig {
  const config = loadDeclared(env, exportVariables);
  // A decimal comma is what a `;` delimiter is chosen for: European locales read both.
  const csvDecimal = config.csvDecimal ?? (config.csvDelimiter === ';' ? ',' : '.');
  if (csvDecimal === ',' && config.csvDelimiter === ',') {
    throw new ConfigError(
      'CSV_DECIMAL "," needs CSV_DELIMITER ";" or "tab": with "," both, every decimal would split into two cells',
      { variable: 'CSV_DECIMAL' },
    );
  }
  const threads = config.threads ?? Math.max(1, Math.floor(availableParallelism() / concurrentExports));
  return Object.freeze({ ...config, csvDecimal, threads });
}

// --- s3 ------------------------------------------------------------------------------------------

const s3Variables = {
  endpoint: envVar(
    'S3_ENDPOINT',
    httpUrl.optional(),
    'S3-compatible endpoint URL, e.g. http://127.0.0.1:9000 for MinIO.',
    { docDefault: '(AWS)' },
  ),
  region: envVar(
    'S3_REGION',
    visibleAscii('a region name such as eu-central-1').default('us-east-1'),
    'S3 region.',
  ),
  forcePathStyle: envVar(
    'S3_FORCE_PATH_STYLE',
    flag(false),
    'Use path-style bucket addressing (MinIO and most S3-compatible servers).',
  ),
  sse: envVar(
    'S3_SSE',
    z.enum(['AES256', 'aws:kms']).optional(),
    'Server-side encryption of uploaded objects: AES256 or aws:kms.',
  ),
  sseKmsKeyId: envVar(
    'S3_SSE_KMS_KEY_ID',
    visibleAscii('a KMS key id or ARN').optional(),
    'KMS key id when S3_SSE is aws:kms.',
  ),
  partSizeBytes: envVar(
    'S3_PART_SIZE_MB',
    int(5, 5120, 8).transform((mb) => mb * 1024 * 1024),
    'Multipart upload part size (5..5120 MiB). Memory per file is about 4 parts.',
  ),
  publicEndpoint: envVar(
    'S3_PUBLIC_ENDPOINT',
    httpUrl.optional(),
    "Endpoint the API's presigned download URLs are signed for, when clients reach S3 by another address than S3_ENDPOINT (docker-compose: http://localhost:9000 for minio:9000).",
    { docDefault: '(S3_ENDPOINT)' },
  ),
  /** Resolved with secretAccessKeyFile into `credentials` by loadS3Config. */
  accessKeyIdFile: envVar(
    'S3_ACCESS_KEY_ID_FILE',
    z.string().optional(),
    'File holding the S3 access key id (with S3_SECRET_ACCESS_KEY_FILE); unset, credentials come from the AWS chain (AWS_ACCESS_KEY_ID, profiles, roles).',
  ),
  secretAccessKeyFile: envVar(
    'S3_SECRET_ACCESS_KEY_FILE',
    z.string().optional(),
    'File holding the S3 secret access key (with S3_ACCESS_KEY_ID_FILE); surrounding whitespace is ignored. Never logged.',
  ),
  /** Which older versions of a period a publish deletes (s3-publication.ts). */
  retention: {
    keepVersions: envVar(
      'S3_KEEP_VERSIONS',
      int(2, 1000, 2),
      'Versions of a period kept on S3 after a publish: the new one, the one it replaced (downloads in flight) and the newest others up to this number (at least 2). Older ones are deleted by the next publish of the period.',
    ),
    minAgeMs: envVar(
      'S3_KEEP_MIN_AGE_MINUTES',
      int(0, 525_600, 60).transform((minutes) => minutes * 60_000),
      'A version beyond S3_KEEP_VERSIONS is deleted only once its newest file is this many minutes older than the new manifest: another worker may still be writing it.',
    ),
  },
};

/** Static S3 credentials read from the *_FILE variables; otherwise the AWS chain applies. */
export interface S3Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export type S3Config = Omit<Loaded<typeof s3Variables>, 'accessKeyIdFile' | 'secretAccessKeyFile'> & {
  readonly credentials?: S3Credentials | undefined;
};

export function loadS3Config(env: Env = process.env): S3Config {
  const { accessKeyIdFile, secretAccessKeyFile, ...config } = loadDeclared(env, s3Variables);
  if ((accessKeyIdFile === undefined) !== (secretAccessKeyFile === undefined)) {
    const [set, unset] =
      accessKeyIdFile === undefined
        ? ['S3_SECRET_ACCESS_KEY_FILE', 'S3_ACCESS_KEY_ID_FILE']
        : ['S3_ACCESS_KEY_ID_FILE', 'S3_SECRET_ACCESS_KEY_FILE'];
    throw new ConfigError(`${set} is set without ${unset}: the two go together`, { variable: set });
  }
  if (accessKeyIdFile === undefined || secretAccessKeyFile === undefined) return Object.freeze(config);
  const credentials = Object.freeze({
    accessKeyId: readVisibleSecretFile(accessKeyIdFile, 'S3_ACCESS_KEY_ID_FILE'),
    secretAccessKey: readVisibleSecretFile(secretAccessKeyFile, 'S3_SECRET_ACCESS_KEY_FILE'),
  });
  return Object.freeze({ ...config, credentials });
}

/** A secret file's text that must be one printable-ASCII word (a key, a token). */
function readVisibleSecretFile(path: string, variable: string): string {
  const text = readFileNamedBy(variable, path);
  if (!VISIBLE_ASCII.test(text)) {
    throw new ConfigError(
      `${variable} holds a line break, space or other character outside printable ASCII (only surrounding whitespace is ignored)`,
      { variable },
    );
  }
  return text;
}

// --- queue -------------------------------------------------------------------------------------

/** What ioredis can connect to; checked here so that a typo is not a TypeError at connect time. */
function isRedisUrl(text: string): boolean {
  if (!/^rediss?:\/\/\S+$/i.test(text)) return false;
  try {
    return new URL(text).hostname !== '';
  } catch {
    return false;
  }
}

const queueVariables = {
  redisUrl: envVar(
    'REDIS_URL',
    z
      .string()
      .default('redis://127.0.0.1:6379')
      .refine(isRedisUrl, 'must be a redis:// or rediss:// URL with a host, e.g. redis://127.0.0.1:6379'),
    'Redis of the job queue: redis://[user:password@]host[:port][/db] or rediss://… (TLS). Ignored when REDIS_CLUSTER_NODES or REDIS_SENTINELS is set.',
  ),
  passwordFile: envVar(
    'REDIS_PASSWORD_FILE',
    z.string().optional(),
    'File holding the Redis password (surrounding whitespace ignored), for any of the three shapes; not together with a password in REDIS_URL.',
  ),
  clusterNodes: envVar(
    'REDIS_CLUSTER_NODES',
    z.string().optional(),
    'Redis Cluster seed nodes, host:port,host:port,… (any one is enough; the rest of the cluster is discovered). Replaces REDIS_URL; QUEUE_PREFIX must then be a {hash-tag}.',
  ),
  sentinels: envVar(
    'REDIS_SENTINELS',
    z.string().optional(),
    'Redis Sentinels, host:port,host:port,…: the queue uses the primary they name REDIS_SENTINEL_NAME and follows it across failovers. Replaces REDIS_URL; not together with REDIS_CLUSTER_NODES.',
  ),
  sentinelPasswordFile: envVar(
    'REDIS_SENTINEL_PASSWORD_FILE',
    z.string().optional(),
    "File holding the password of the Sentinels themselves (their requirepass), when they ask for one; only with REDIS_SENTINELS. The primary's password is REDIS_PASSWORD_FILE.",
  ),
  sentinelName: envVar(
    'REDIS_SENTINEL_NAME',
    visibleAscii('a Sentinel master name such as mymaster').optional(),
    'Name of the primary the Sentinels in REDIS_SENTINELS monitor.',
  ),
  tls: envVar(
    'REDIS_TLS',
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .transform((v) => v === 'true' || v === '1' || v === 'yes')
      .optional(),
    'Connect with TLS (server certificate and host name checked) to the cluster nodes, the Sentinels and the primary, or the REDIS_URL host; a rediss:// REDIS_URL turns it on too.',
    { docDefault: '(off; on for a rediss:// REDIS_URL)' },
  ),
  tlsCaFile: envVar(
    'REDIS_TLS_CA_FILE',
    z.string().optional(),
    "PEM file of the CA that signed the Redis servers' certificates (instead of the system CAs); needs TLS on.",
  ),
  prefix: envVar(
    'QUEUE_PREFIX',
    z
      .string()
      .regex(/^\{[^{}:]+\}$|^[^{}:\s]+$/, 'must be a name without ":" (a {hash-tag} for Redis Cluster)')
      .default('{shift-export}'),
    'BullMQ key prefix. A {hash-tag} puts every key of the queue in one Redis Cluster slot, which a cluster requires.',
  ),
  concurrency: envVar('WORKER_CONCURRENCY', int(1, 64, 1), 'Exports one worker process runs at once.'),
  attempts: envVar('JOB_ATTEMPTS', int(1, 100, 5), 'Attempts of a job whose failure is transient.'),
  backoffMs: envVar(
    'JOB_BACKOFF_MS',
    int(0, 86_400_000, 30_000),
    'First retry delay of a failed job; doubles each attempt, half fixed and half random, at most 1 h.',
  ),
  shutdownGraceMs: envVar(
    'SHUTDOWN_GRACE_MS',
    int(0, 3_600_000, 60_000),
    'On SIGTERM/SIGINT, how long a running export may go on before it is aborted and handed back.',
  ),
};

type RedisFields =
  | 'redisUrl'
  | 'passwordFile'
  | 'clusterNodes'
  | 'sentinels'
  | 'sentinelPasswordFile'
  | 'sentinelName'
  | 'tls'
  | 'tlsCaFile';

/** The queue's settings; the Redis variables are resolved into one `redis` target (redis-target.ts). */
export type QueueConfig = Omit<Loaded<typeof queueVariables>, RedisFields> & { readonly redis: RedisTarget };

export function loadQueueConfig(env: Env = process.env): QueueConfig {
  const {
    redisUrl,
    passwordFile,
    clusterNodes,
    sentinels,
    sentinelPasswordFile,
    sentinelName,
    tls,
    tlsCaFile,
    ...queue
  } = loadDeclared(env, queueVariables);
  const redis = resolveRedisTarget({
    url: redisUrl,
    passwordFile,
    clusterNodes,
    sentinels,
    sentinelPasswordFile,
    sentinelName,
    tls,
    tlsCaFile,
    prefix: queue.prefix,
  });
  return Object.freeze({ ...queue, redis });
}

/** How long to wait for Redis, and the job lock and stall-check intervals (short in tests). */
const queueTuningVariables = {
  redisConnectTimeoutMs: envVar(
    'REDIS_CONNECT_TIMEOUT_MS',
    int(100, 600_000, 10_000),
    'How long a command, worker or API waits for Redis at start before it stops with a clear error.',
  ),
  lockDurationMs: envVar(
    'WORKER_LOCK_DURATION_MS',
    int(1000, 3_600_000, 30_000),
    'Lock of a running job, renewed every half of it. A worker that dies (SIGKILL, crash) leaves its job locked this long; then another worker takes it over.',
  ),
  stalledIntervalMs: envVar(
    'WORKER_STALLED_INTERVAL_MS',
    int(500, 3_600_000, 30_000),
    'How often each worker looks for stalled jobs (whose lock expired) and puts them back in the queue.',
  ),
};

export type QueueTuning = Loaded<typeof queueTuningVariables>;

export function loadQueueTuning(env: Env = process.env): QueueTuning {
  return loadDeclared(env, queueTuningVariables);
}

// --- schedule ------------------------------------------------------------------------------------

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const scheduleVariables = {
  /** Read by src/definitions/ (the file is checked there, line by line), not here. */
  exportsFile: envVar(
    'EXPORTS_FILE',
    z
      .string()
      .refine((p) => !hasControlCharacters(p), 'must not contain control characters')
      .optional(),
    'YAML file of export definitions (docs/examples/exports.yaml), each a name, schedule, period, formats, dest, filter, split and deliver; `shift-export exports check` checks it. A definition without formats or dest gets EXPORT_FORMATS and EXPORT_DEST/NAME. Set, it replaces NIGHTLY_* and LOOKBACK_DAYS; unset, one definition named nightly is made of them, EXPORT_FORMATS and EXPORT_DEST (its files stay in EXPORT_DEST itself).',
    { docDefault: '(none: the nightly definition)' },
  ),
  enabled: envVar(
    'NIGHTLY_ENABLED',
    flag(true),
    'Whether the worker upserts the nightly schedule; false removes it (give every worker the same value).',
  ),
  cron: envVar(
    'NIGHTLY_CRON',
    z
      .string()
      .regex(/^\S+( \S+){4,5}$/, 'must be a cron pattern of 5 or 6 fields')
      .default('0 3 * * *'),
    'Cron pattern of the nightly export.',
  ),
  tz: envVar(
    'NIGHTLY_TZ',
    z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin').default('UTC'),
    'IANA time zone of NIGHTLY_CRON and of "yesterday".',
  ),
  lookbackDays: envVar(
    'LOOKBACK_DAYS',
    int(0, 60, 2),
    'Days before yesterday that each nightly run exports again (late shifts).',
  ),
};

export type ScheduleConfig = Loaded<typeof scheduleVariables>;

export function loadScheduleConfig(env: Env = process.env): ScheduleConfig {
  return loadDeclared(env, scheduleVariables);
}

// --- api -----------------------------------------------------------------------------------------

/**
 * The API's bearer tokens from API_TOKENS, else API_TOKENS_FILE (comma- or line-separated); without
 * one the API would be open, so it does not start.
 */
function resolveApiTokens(text: string | undefined, file: string | undefined): readonly string[] {
  const variable = text === undefined && file !== undefined ? 'API_TOKENS_FILE' : 'API_TOKENS';
  const tokens =
    variable === 'API_TOKENS_FILE' && file !== undefined
      ? listOf(readFileNamedBy(variable, file).replace(/\r?\n/g, ','))
      : listOf(text);
  if (tokens.length === 0) {
    throw new ConfigError(
      'API_TOKENS is not set (nor API_TOKENS_FILE): give the control API at least one bearer token',
      { variable },
    );
  }
  if (!tokens.every((t) => VISIBLE_ASCII.test(t))) {
    // A client could never send such a token in its Authorization header.
    throw new ConfigError(
      `${variable} has a token with a space, line break or other character an HTTP header cannot carry`,
      { variable },
    );
  }
  if (tokens.some((t) => t.length < MIN_API_TOKEN_LENGTH)) {
    // A short token can be guessed; the message names the variable, never the token.
    throw new ConfigError(
      `${variable} has a token shorter than ${MIN_API_TOKEN_LENGTH} characters: use long random tokens (e.g. openssl rand -hex 24)`,
      { variable },
    );
  }
  return Object.freeze(tokens);
}

/** The shortest bearer token the API accepts. */
export const MIN_API_TOKEN_LENGTH = 16;

const apiVariables = {
  host: envVar(
    'API_HOST',
    visibleAscii('a host name or address').default('0.0.0.0'),
    'Address the control API listens on.',
  ),
  port: envVar('API_PORT', int(0, 65_535, 3000), 'Port of the control API.'),
  /** Resolved with tokensFile by loadApiConfig. */
  tokens: envVar(
    'API_TOKENS',
    z.string().optional(),
    'Comma-separated bearer tokens accepted by the control API and dashboard, each at least 16 characters.',
    { docDefault: '(none: the API refuses to start)' },
  ),
  tokensFile: envVar(
    'API_TOKENS_FILE',
    z.string().optional(),
    'File holding the API tokens, comma- or line-separated (used when API_TOKENS is unset).',
  ),
  bodyLimitBytes: envVar(
    'API_BODY_LIMIT_BYTES',
    int(64, 1024 * 1024, 16_384),
    'Largest request body the control API accepts.',
  ),
  dashboardReadOnly: envVar(
    'DASHBOARD_READ_ONLY',
    flag(true),
    'Bull Board at /admin/queues only shows the queue; false enables its write actions (add, retry, clean, remove, update data, pause, empty, obliterate).',
  ),
};

export type ApiConfig = Omit<Loaded<typeof apiVariables>, 'tokens' | 'tokensFile'> & {
  readonly tokens: readonly string[];
};

export function loadApiConfig(env: Env = process.env): ApiConfig {
  const { tokens, tokensFile, ...config } = loadDeclared(env, apiVariables);
  return Object.freeze({ ...config, tokens: resolveApiTokens(tokens, tokensFile) });
}

// --- notify --------------------------------------------------------------------------------------

/**
 * A webhook URL as an error may show it: scheme, host and port, credentials as `***` and the path
 * elided, because chat webhooks (Slack, Teams) carry their secret in the path.
 */
function shownWebhookUrl(url: URL): string {
  const userinfo = url.username !== '' || url.password !== '' ? '***@' : '';
  return `${url.protocol}//${userinfo}${url.host}/…`;
}

/** NOTIFY_WEBHOOK_URL: each entry an absolute http(s) URL; a bad one named by its place and origin. */
function parseWebhookUrls(text: string | undefined): readonly string[] {
  const entries = listOf(text);
  entries.forEach((entry, i) => {
    const which = entries.length === 1 ? 'its URL' : `entry ${i + 1}`;
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new ConfigError(
        `NOTIFY_WEBHOOK_URL is invalid: ${which} is not a URL (expected https://host/path, comma-separated)`,
        { variable: 'NOTIFY_WEBHOOK_URL' },
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ConfigError(
        `NOTIFY_WEBHOOK_URL is invalid: ${which} (${shownWebhookUrl(url)}) must start with http:// or https://`,
        { variable: 'NOTIFY_WEBHOOK_URL' },
      );
    }
    if (hasControlCharacters(entry) || /\s/.test(entry)) {
      throw new ConfigError(
        `NOTIFY_WEBHOOK_URL is invalid: ${which} (${shownWebhookUrl(url)}) has a space or control character`,
        { variable: 'NOTIFY_WEBHOOK_URL' },
      );
    }
  });
  return Object.freeze(entries);
}

const notifyVariables = {
  webhookUrls: envVar(
    'NOTIFY_WEBHOOK_URL',
    z.string().optional().transform(parseWebhookUrls),
    'Comma-separated webhook URLs that get a JSON POST on export.published, export.failed and backfill.completed (Slack and Teams incoming webhooks show its text field). Unset: no notifications. Never logged beyond scheme and host.',
  ),
  secret: envVar(
    'NOTIFY_WEBHOOK_SECRET',
    visibleAscii('a line break or space is a paste error, not part of a key')
      .min(16, 'must be at least 16 characters')
      .optional(),
    'Key of the HMAC-SHA256 of each raw body, sent as X-Shift-Export-Signature: sha256=<hex>: at least 16 printable ASCII characters. Unset: notifications are not signed.',
  ),
  timeoutMs: envVar(
    'NOTIFY_TIMEOUT_MS',
    int(100, 600_000, 10_000),
    'Longest time one webhook POST may take (connect, headers and body).',
  ),
  attempts: envVar(
    'NOTIFY_ATTEMPTS',
    int(1, 100, 8),
    'Attempts of a notification by the worker (a job of its own per event and URL) on network errors, timeouts, 408, 429 and 5xx; `run` makes at most 3 within 15 s.',
  ),
  backoffMs: envVar(
    'NOTIFY_BACKOFF_MS',
    int(0, 86_400_000, 5_000),
    'First retry delay of a notification by the worker; doubles each attempt, half fixed and half random, at most 1 h.',
  ),
  linkExpiresSeconds: envVar(
    'NOTIFY_LINK_EXPIRES_SECONDS',
    int(1, 7 * 24 * 3600, 24 * 3600),
    'Lifetime of the presigned S3 file links in a notification (at most 7 days; temporary credentials may end them sooner).',
  ),
};

export type NotifyConfig = Loaded<typeof notifyVariables>;

export function loadNotifyConfig(env: Env = process.env): NotifyConfig {
  return loadDeclared(env, notifyVariables);
}

// --- log -----------------------------------------------------------------------------------------

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const logVariables = {
  level: envVar(
    'LOG_LEVEL',
    z.enum(LOG_LEVELS).default('info'),
    'pino level: fatal, error, warn, info, debug, trace or silent.',
  ),
};

export function loadLogLevel(env: Env = process.env): LogLevel {
  return loadDeclared(env, logVariables).level;
}

// --- the declarations, for the docs --------------------------------------------------------------

/** Every slice in the order README and .env.example list them, each under its heading. */
export const CONFIG_SLICES = [
  { heading: 'WFM API: where the report comes from and how it is read', variables: wfmVariables },
  { heading: 'Exports: destination, formats, CSV and workbook', variables: exportVariables },
  { heading: 'S3 (when a destination is s3://bucket/prefix)', variables: s3Variables },
  { heading: 'Redis and the job queue', variables: queueVariables },
  { heading: 'Waiting for Redis, job locks and stalled jobs', variables: queueTuningVariables },
  { heading: 'Nightly schedule', variables: scheduleVariables },
  { heading: 'Control API and dashboard', variables: apiVariables },
  { heading: 'Notifications (webhooks)', variables: notifyVariables },
  { heading: 'Logging', variables: logVariables },
] as const;

type AllVariables = (typeof CONFIG_SLICES)[number]['variables'];
export type EnvName = AllVariables extends infer D ? (D extends Declaration ? NamesOf<D> : never) : never;

/** Every environment variable shift-export reads: default (as text) and meaning. */
export const ENV_DOCS: Readonly<Record<EnvName, VarDoc>> = Object.freeze(
  Object.fromEntries(
    CONFIG_SLICES.flatMap((slice) => variablesOf(slice.variables)).map((v) => [v.name, docOf(v)]),
  ) as Record<EnvName, VarDoc>,
);
