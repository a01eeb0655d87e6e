// The WFM API group of settings: where the report comes from (WFM_BASE_URL, the bearer token from
// WFM_TOKEN or WFM_TOKEN_FILE) and how it is read (timeouts, read guard, retries, paging, window
// query, body limits). requireUpstream turns it into a config that can talk to the upstream.

import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { hasControlCharacters } from '../one-line.js';
import { envVar, type Loaded } from './env-var.js';
import { loadDeclared, type Env } from './load-config.js';
import { readFileNamedBy } from './read-file-named-by.js';
import { flag, httpUrl, int, VISIBLE_ASCII, visibleAscii } from './variable-schemas.js';

export const PAGING_MODES = ['none', 'keyset', 'offset'] as const;
export type PagingMode = (typeof PAGING_MODES)[number];

export const wfmVariables = {
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

export function loadWfmConfig(env: Env): WfmConfig {
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
