// What became of the e-mail of an export (`deliver.email`), kept beside the queue so that `status`
// can show it with the export job: the worker's e-mail job writes it after each attempt, keyed by
// the export id, under the queue's prefix, for as long as the sent-log remembers the messages.

import { z } from 'zod';
import type { RedisClient } from './redis-connection.js';

/** As long as the sent-log (src/notify/mail-sent-log.ts). */
export const MAIL_RECORD_TTL_SECONDS = 30 * 24 * 3600;

export const mailDeliveryRecordSchema = z.object({
  definition: z.string(),
  /** `sent`: every message went (or had gone); `pending`: some wait for a retry; `failed`: for good. */
  state: z.enum(['sent', 'pending', 'failed']),
  at: z.string(),
  attempts: z.number().int().nonnegative(),
  messages: z.number().int().nonnegative(),
  sent: z.number().int().nonnegative(),
  refused: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  skipped_recipients: z.number().int().nonnegative(),
  unchanged: z.number().int().nonnegative(),
  /** The first reason a message was not sent, one line. */
  reason: z.string().optional(),
});

export type MailDeliveryRecord = z.infer<typeof mailDeliveryRecordSchema>;

export function mailRecordKey(prefix: string, exportId: string): string {
  return `${prefix}:shift-export-mail:delivery:${exportId}`;
}

export async function writeMailDeliveryRecord(
  redis: RedisClient,
  prefix: string,
  exportId: string,
  record: MailDeliveryRecord,
): Promise<void> {
  await redis.set(mailRecordKey(prefix, exportId), JSON.stringify(record), 'EX', MAIL_RECORD_TTL_SECONDS);
}

/** The record of an export's e-mail; undefined when it had none (or it is unreadable). */
export async function readMailDeliveryRecord(
  redis: RedisClient,
  prefix: string,
  exportId: string,
): Promise<MailDeliveryRecord | undefined> {
  const text = await redis.get(mailRecordKey(prefix, exportId));
  if (text === null) return undefined;
  try {
    const parsed = mailDeliveryRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
