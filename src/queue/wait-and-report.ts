// What `enqueue --wait` and `backfill --wait` do once the job is queued: live progress on stderr
// (redrawn on a terminal, one line per phase otherwise), then the result on stdout — the export's
// counts, or what `describe` makes of another return value — or the failure reason on stderr.
// Resolves with the exit code: 0 completed, 1 failed.

import type { CliIo } from '../cli/command.js';
import { readExportJobResult } from './export-job-result.js';
import { formatExportResult, progressText } from './job-text.js';
import type { Producer } from './producer.js';
import { waitForJob } from './wait-for-job.js';

export async function waitAndReport(
  producer: Producer,
  jobId: string,
  io: CliIo,
  describe?: (value: unknown) => string | undefined,
): Promise<number> {
  const events = await producer.events();
  let lastPhase = '';
  const outcome = await waitForJob(producer.queue, events, jobId, (p) => {
    if (io.stderr.isTTY) io.stderr.write(`\r\x1b[K${progressText(p)}`);
    else if (p.phase !== lastPhase) io.stderr.write(`${progressText(p)}\n`);
    lastPhase = p.phase;
  });
  if (io.stderr.isTTY && lastPhase !== '') io.stderr.write('\r\x1b[K');
  if (outcome.state === 'failed') {
    io.stderr.write(`job ${jobId} failed: ${outcome.reason}\n`);
    return 1;
  }
  const custom = describe?.(outcome.returnValue);
  const result = readExportJobResult(outcome.returnValue);
  io.stdout.write(
    `${custom ?? (result === undefined ? JSON.stringify(outcome.returnValue) : formatExportResult(result))}\n`,
  );
  return 0;
}
