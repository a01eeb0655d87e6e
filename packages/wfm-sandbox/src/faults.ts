// Fault injection of the sandbox: what can go wrong with an upstream, per endpoint, set at start
// (`--faults JSON`) or at run time (`PUT /_sandbox/faults`, or `RunningSandbox.setFaults`).
// "…Next" counters are deterministic (the next N requests misbehave, then the endpoint recovers);
// "…Rate" probabilities come from the sandbox's seeded random generator.

export const FAULT_TARGETS = ['wfm_timers', 'divisions', 'categories', '*'] as const;
export type FaultTarget = (typeof FAULT_TARGETS)[number];

export interface FaultSpec {
  /** Delay before the response starts, in ms. */
  readonly latencyMs?: number;
  /** Answer the next N requests with `errorStatus`. */
  readonly failNext?: number;
  /** Probability (0..1) of answering a request with `errorStatus`. */
  readonly errorRate?: number;
  /** Status of failNext / errorRate answers (default 503). */
  readonly errorStatus?: 401 | 403 | 408 | 500 | 502 | 503 | 504;
  /** Answer the next N requests with 429 and a Retry-After header. */
  readonly rateLimitNext?: number;
  /** Retry-After value of 429 answers: seconds ("1") or an HTTP-date (default "1"). */
  readonly retryAfter?: string;
  /** For the next `resetNext` requests (default 1), destroy the socket after this many body bytes. */
  readonly resetAfterBytes?: number;
  readonly resetNext?: number;
  /** For the next `truncateNext` requests (default 1), end the body cleanly after this many bytes. */
  readonly truncateAfterBytes?: number;
  readonly truncateNext?: number;
  /** For the next `stallNext` requests (default 1), stop sending after this many bytes and hang. */
  readonly stallAfterBytes?: number;
  readonly stallNext?: number;
  /** Silently return at most this many rows per request (like PostgREST max-rows); Content-Range still tells the truth. */
  readonly rowCap?: number;
  /** Probability (0..1) that a wfm_timers row is made invalid (a missing or mistyped field, a bad date...). */
  readonly invalidRowRate?: number;
  /**
   * Which variants of invalid-rows.ts invalid rows are drawn from, by name (default:
   * the contract breaks). Others break what JSON.parse hides: "id past 2^53", "user_id past 2^53",
   * "id with a fraction JSON.parse rounds away, missing start_time", "comment not UTF-8" (otherwise
   * valid), "comment not UTF-8, missing start_time".
   */
  readonly invalidRowVariants?: readonly string[];
  /** Probability (0..1) that a wfm_timers row is sent twice (an extra row, not counted in Content-Range). */
  readonly duplicateRowRate?: number;
  /** Ignore every wfm_timers filter, order, limit and offset (an upstream that does not speak PostgREST). */
  readonly ignoreFilters?: boolean;
  /**
   * Probability (0..1) that a valid wfm_timers row carries hostile text (see hostile-text.ts):
   * characters XML 1.0 cannot hold, formulas behind leading blanks.
   */
  readonly hostileTextRate?: number;
  /**
   * For the next `trickleNext` requests (default 1), send the body at this many bytes a second on
   * the wire (after compression): a link that never goes silent long enough for a body timeout.
   */
  readonly trickleBytesPerSecond?: number;
  readonly trickleNext?: number;
  /**
   * For the next `wrongBodyNext` wfm_timers requests (default 1), answer 200 with something that is
   * not the report: `html`, an HTML maintenance page (text/html) that echoes the request's
   * Authorization header as a debugging proxy might — so tests can check it is redacted — or
   * `object`, a JSON object instead of the array.
   */
  readonly wrongBody?: 'html' | 'object';
  readonly wrongBodyNext?: number;
  /**
   * The Content-Encoding of wfm_timers answers, whatever the request accepts: `identity` (no
   * compression), `gzip`, `deflate` or `br` encode the body; any other name labels the plain body
   * with it (an encoding the client cannot decode). Unset: gzip when the request accepts gzip,
   * else identity.
   */
  readonly contentEncoding?: string;
}

export type FaultPlan = Partial<Record<FaultTarget, FaultSpec>>;
