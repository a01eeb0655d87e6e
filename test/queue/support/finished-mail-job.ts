// The e-mail job of an export, once it has finished (completed, or failed for good), read from the
// harness's notification queue: what the tests of delivery wait on, by the job's id.

import type { Job, Worker } from 'bullmq';
import { mailJobId, type MailJobData } from '../../../src/notify/mail-job.js';
import { openNotificationQueue } from '../../../src/notify/notification-queue.js';
import type { Harness } from './queue-harness.js';

export async function finishedMailJob(
  h: Pick<Harness, 'producer' | 'prefix'>,
  worker: Worker,
  of: Pick<MailJobData, 'definition' | 'export_id' | 'export_run'>,
): Promise<Job> {
  const id = mailJobId(of);
  // Listening before the look-up: a job that finishes in between is heard, not missed.
  const done = new Promise<void>((resolve) => {
    worker.on('completed', (job) => job.id === id && resolve());
    worker.on('failed', (job) => job?.id === id && job.finishedOn !== undefined && resolve());
  });
  const queue = openNotificationQueue(h.producer.connection, { prefix: h.prefix, attempts: 1, backoffMs: 0 });
  try {
    const state = await (await queue.getJob(id))?.getState();
    if (state !== 'completed' && state !== 'failed') await done;
    const job = await queue.getJob(id);
    if (job === undefined) throw new Error(`no e-mail job ${id}`);
    return job;
  } finally {
    await queue.close();
  }
}
