// What `enqueue --wait` and `backfill --wait` do once the job is queued: live progress on stderr
// (redrawn on a terminal, one line per phase otherwise), then the result on stdout — the export's
// counts, or what `describe` makes of another return value — or the failure reason on stderr.
// Resolves with the exit code: 0 completed, 1 failed; throws RedisUnavailableError when Redis stays
// unreachable for `redisOutageMs` while we wait.

import { ShiftExportError } from '../errors.js';
import { oneLine } from '../one-line.js';
import { readExportJobResult } from '../queue/export-job-result.js';
import type { Producer } from '../queue/producer.js';
import { watchRedisOutage } from '../queue/redis-outage.js';
import { waitForJob } from '../queue/wait-for-job.js';
import type { CliIo } from './command.js';
import { formatExportResult, progressText } from './job-text.js';

/** How long Redis may be unreachable while we wait before the command gives up (default). */
export const WAIT_REDIS_OUTAGE_MS = 10_000;

export async function waitAndReport(
  producer: Producer,
  jobId: string,
  io: CliIo,
  describe?: (value: unknown) => string | undefined,
  redisOutageMs: number = WAIT_REDIS_OUTAGE_MS,
): Promise<number> {
  let lastPhase = '';
  // Without this, a Redis that goes away while we wait leaves the command waiting forever. Watched
  // from the start: Redis can go away while the events are being opened, right after the job id
  // was printed.
  const outage = watchRedisOutage(
    [producer.connection],
    redisOutageMs,
    producer.config.redis,
    `waiting for job ${jobId} (it goes on when Redis is back: shift-export status ${jobId})`,
  );
  // A command Redis does not answer fails at once (the producer queues nothing offline): while the
  // connection is down such an error says only that Redis is away, and the watch says whether it
  // stays away long enough to give up.
  const untilLost = <T>(step: Promise<T>): Promise<T> => {
    const answered = step.catch((error: unknown) => {
      if (error instanceof ShiftExportError || producer.connection.status === 'ready') throw error;
      return outage.lost;
    });
    return Promise.race([answered, outage.lost]);
  };
  let outcome: Awaited<ReturnType<typeof waitForJob>>;
  try {
    const events = await untilLost(producer.events());
    outcome = await untilLost(
      waitForJob(producer.queue, events, jobId, (p) => {
        if (io.stderr.isTTY) io.stderr.write(`\r\x1b[K${progressText(p)}`);
        else if (p.phase !== lastPhase) io.stderr.write(`${progressText(p)}\n`);
        lastPhase = p.phase;
      }),
    );
  } finally {
    outage.dispose();
    if (io.stderr.isTTY && lastPhase !== '') io.stderr.write('\r\x1b[K');
  }
  if (outcome.state === 'failed') {
    io.stderr.write(`job ${jobId} failed: ${oneLine(outcome.reason)}\n`);
    return 1;
  }
  const custom = describe?.(outcome.returnValue);
  const result = readExportJobResult(outcome.returnValue);
  io.stdout.write(
    `${custom ?? (result === undefined ? JSON.stringify(outcome.returnValue) : formatExportResult(result))}\n`,
  );
  return 0;
}
