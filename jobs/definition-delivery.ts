// What an export job's definition asks to be delivered, as the worker resolves it when the job's
// outcome is known: the job's `export` (its definition's name) looked up in the definitions the
// worker holds now (SIGHUP may have replaced them since the job was queued), giving its
// `deliver.email` and its own webhooks (`deliver.webhook`). A name the worker no longer holds
// delivers nothing of its own (the export job itself already failed for it). The legacy nightly
// definition's jobs name none.

import type { Job } from 'bullmq';
import { findDefinition, type ExportDefinitions } from '../src/definitions/export-definition.js';
import type { MailSettings } from '../src/notify/mail-recipients.js';
import { exportJobDataSchema } from '../src/queue/export-job-data.js';
import { JOB_NAMES } from '../src/queue/queue-names.js';

/** The definition an export job ran for, by its data; undefined for other jobs and unnamed ones. */
export function definitionNameOf(job: Pick<Job, 'name' | 'data'>): string | undefined {
  if (job.name !== JOB_NAMES.exportPeriod) return undefined;
  const data = exportJobDataSchema.safeParse(job.data);
  return data.success ? data.data.export : undefined;
}

export interface DefinitionDelivery {
  /** The `deliver.email` of the job's definition; undefined: the export sends no e-mail. */
  mailSettingsOf(
    job: Pick<Job, 'name' | 'data'>,
  ): { readonly definition: string; readonly email: MailSettings } | undefined;
  /** The webhook URLs of the definition `name` (none for an unknown name or undefined). */
  webhooksOf(name: string | undefined): readonly string[];
  /** Every webhook URL of every definition in force: the receivers a queued delivery may name. */
  allWebhooks(): readonly string[];
}

export function definitionDelivery(definitions: () => ExportDefinitions): DefinitionDelivery {
  return {
    mailSettingsOf(job) {
      const name = definitionNameOf(job);
      if (name === undefined) return undefined;
      const email = findDefinition(definitions(), name)?.deliver?.email;
      return email === undefined ? undefined : { definition: name, email };
    },
    webhooksOf(name) {
      if (name === undefined) return [];
      return findDefinition(definitions(), name)?.deliver?.webhooks ?? [];
    },
    allWebhooks() {
      return definitions().definitions.flatMap((d) => d.deliver?.webhooks ?? []);
    },
  };
}
