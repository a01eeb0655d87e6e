// Settings of the queue that src/config.ts does not hold yet: how long to wait for Redis at start,
// and the job lock and stall-check intervals (short in tests, so a killed worker's job is taken
// over in seconds rather than a minute). Parsed like config.ts's slices: zod, the variable named
// on error, frozen. These keys belong in ENV_DOCS and the README table (see TUNING_ENV_DOCS).

import { z } from 'zod';
import { ConfigError } from '../errors.js';

type Env = Readonly<Record<string, string | undefined>>;

export const TUNING_ENV_DOCS = {
  REDIS_CONNECT_TIMEOUT_MS: {
    default: '10000',
    description:
      'How long a command, worker or API waits for Redis at start before it stops with a clear error.',
  },
  WORKER_LOCK_DURATION_MS: {
    default: '30000',
    description:
      'Lock of a running job, renewed every half of it. A worker that dies (SIGKILL, crash) leaves its job locked this long; then it counts as stalled and another worker takes it.',
  },
  WORKER_STALLED_INTERVAL_MS: {
    default: '30000',
    description:
      'How often each worker looks for stalled jobs (whose lock expired) and puts them back in the queue.',
  },
} as const;

const intIn = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const shape = {
  REDIS_CONNECT_TIMEOUT_MS: intIn(100, 600_000).default(10_000),
  WORKER_LOCK_DURATION_MS: intIn(1000, 3_600_000).default(30_000),
  WORKER_STALLED_INTERVAL_MS: intIn(500, 3_600_000).default(30_000),
};

export interface QueueTuning {
  readonly redisConnectTimeoutMs: number;
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
}

export function loadQueueTuning(env: Env = process.env): QueueTuning {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(shape)) {
    const raw = env[key];
    input[key] = raw === undefined || raw === '' ? undefined : raw;
  }
  const result = z.object(shape).safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    const key = String(issue?.path[0] ?? '?');
    const got = input[key];
    throw new ConfigError(
      `${key} is invalid (${got === undefined ? 'unset' : `"${got}"`}): ${issue?.message ?? 'invalid value'}`,
      {
        variable: key,
      },
    );
  }
  const c = result.data;
  return Object.freeze({
    redisConnectTimeoutMs: c.REDIS_CONNECT_TIMEOUT_MS,
    lockDurationMs: c.WORKER_LOCK_DURATION_MS,
    stalledIntervalMs: c.WORKER_STALLED_INTERVAL_MS,
  });
}
