// The group of settings that says how long a command waits for Redis at start, and how long a
// job's lock lasts and how often workers look for stalled jobs (short in tests).

import { envVar, type Loaded } from './env-var.js';
import { loadDeclared, type Env } from './load-config.js';
import { int } from './variable-schemas.js';

/** How long to wait for Redis, and the job lock and stall-check intervals (short in tests). */
export const queueTuningVariables = {
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

export function loadQueueTuning(env: Env): QueueTuning {
  return loadDeclared(env, queueTuningVariables);
}
