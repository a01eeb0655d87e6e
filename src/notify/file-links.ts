// The links of an export.published event's files, added right before it is sent: for S3 a presigned
// GET URL per file (valid NOTIFY_LINK_EXPIRES_SECONDS), so a stored event in Redis holds no signed
// URL and a delivery retried hours later still carries links that work. A local folder's files
// already carry their paths. A link that cannot be signed is left out and logged: the event still
// goes, an operator hears about the export either way.

import type { S3Config } from '../config/s3-config.js';
import { createDestination } from '../destinations/create-destination.js';
import { parseDestination } from '../destination-address.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { NotifyEvent } from './notify-event.js';

export interface LinkSource {
  /** The export's destination root (`s3://bucket/prefix`, or a folder). */
  readonly dest: string;
  readonly s3Config: () => S3Config;
  readonly expiresSeconds: number;
  readonly logger: Logger;
}

/** Whether the files of an export to `dest` are given as paths (a folder) rather than S3 links. */
export function isLocalDestination(dest: string): boolean {
  return parseDestination(dest).kind === 'local';
}

export async function withFileLinks(event: NotifyEvent, source: LinkSource): Promise<NotifyEvent> {
  if (event.event !== 'export.published' || !event.files.some((f) => f.key !== undefined)) return event;
  let destination: Awaited<ReturnType<typeof createDestination>> | undefined;
  try {
    destination = await createDestination(source.dest, source.s3Config, source.logger);
    if (!('presignPublishedFile' in destination)) return event;
    const s3 = destination;
    const files = await Promise.all(
      event.files.map(async (f) =>
        f.key === undefined
          ? f
          : { ...f, url: await s3.presignPublishedFile(event.period, f.key, source.expiresSeconds) },
      ),
    );
    return { ...event, files };
  } catch (error) {
    source.logger.warn(
      { event: event.event, eventId: event.id, reason: describeError(error) },
      'could not sign the file links of a notification; it is sent without them',
    );
    return event;
  } finally {
    if (destination !== undefined && 'close' in destination && typeof destination.close === 'function')
      destination.close();
  }
}
