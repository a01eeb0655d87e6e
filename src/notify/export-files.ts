// The published files of an export as a delivery e-mail reaches them: read through the destination
// that holds them (attachments), or named for a reader — a presigned GET URL valid
// NOTIFY_LINK_EXPIRES_SECONDS on S3 (signed when the mail is written, as the webhooks' links are),
// the file's path on a local folder. The same door the webhooks' file links use (file-links.ts).
// Through the same destination the mail finds the definition's previous period, published beside
// this one (findPreviousPeriod: the first of previousPeriods with a manifest), for its comparison;
// the export's Overview finds it the same way.

import type { Readable } from 'node:stream';
import type { S3Config } from '../config/s3-config.js';
import type { Period } from '../domain/period.js';
import { findPreviousPeriod } from '../render/previous-period.js';
import { createDestination } from '../destinations/create-destination.js';
import type { Logger } from '../logger.js';
import type { ExportFiles } from './deliver-export-mail.js';

export interface ExportFilesSource {
  /** The export's destination root (`s3://bucket/prefix`, or a folder). */
  readonly dest: string;
  readonly period: Period;
  /** Where the published export is (the job's result `location`): local paths are read from it. */
  readonly location: string;
  readonly s3Config: () => S3Config;
  readonly expiresSeconds: number;
  readonly logger: Logger;
}

export interface OpenedExportFiles extends ExportFiles {
  /** The manifest.json text of the period's published export; undefined when there is none. */
  readManifest(): Promise<string | undefined>;
  close(): void;
}

export async function openExportFiles(source: ExportFilesSource): Promise<OpenedExportFiles> {
  const destination = await createDestination(source.dest, source.s3Config, source.logger);
  const close = (): void => {
    if ('close' in destination && typeof destination.close === 'function') destination.close();
  };
  return {
    readManifest: () => destination.readManifest(source.period),
    previousPublished: () => findPreviousPeriod(destination, source.period),
    open: async (path) => (await destination.openPublishedFile(source.period, path)) as Readable,
    link: async (path) =>
      'presignPublishedFile' in destination
        ? {
            kind: 'url',
            url: await destination.presignPublishedFile(source.period, path, source.expiresSeconds),
          }
        : { kind: 'path', path: `${source.location.replace(/\/+$/, '')}/${path}` },
    close,
  };
}
