// Waits for a job to finish, reporting its progress events on the way: what `enqueue --wait` and
// `backfill --wait` do. Built on QueueEvents and job.waitUntilFinished, which also covers a job
// that finished before we started listening.

import type { Queue, QueueEvents } from 'bullmq';
import { progressSchema, type JobProgressView } from './job-view.js';

export type JobOutcome =
  | { readonly state: 'completed'; readonly returnValue: unknown }
  | { readonly state: 'failed'; readonly reason: string };

export async function waitForJob(
  queue: Queue,
  events: QueueEvents,
  jobId: string,
  onProgress: (progress: JobProgressView) => void = () => undefined,
): Promise<JobOutcome> {
  const job = await queue.getJob(jobId);
  if (job === undefined) return { state: 'failed', reason: `job ${jobId} does not exist (removed?)` };
  const listener = ({ jobId: id, data }: { jobId: string; data: unknown }): void => {
    if (id !== jobId) return;
    const parsed = progressSchema.safeParse(data);
    if (parsed.success) onProgress(parsed.data);
  };
  events.on('progress', listener);
  try {
    const returnValue: unknown = await job.waitUntilFinished(events);
    return { state: 'completed', returnValue };
  } catch (error) {
    return { state: 'failed', reason: error instanceof Error ? error.message : String(error) };
  } finally {
    events.off('progress', listener);
  }
}
