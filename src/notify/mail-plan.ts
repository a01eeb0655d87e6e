// The messages one delivery of an export sends, decided before anything is sent: who (mail-
// recipients.ts), which files (mail-message.ts), whether `when: changed` holds each one back, and
// the message key the sent-log records it under. The key is a digest of the export id, the division
// and the set of recipients, so a retried job computes the same keys and finds what the server
// already accepted; a new export of the period (another export id) is a new message. Pure.

import { createHash } from 'node:crypto';
import { filesOfMessage, type MailManifest, type MailManifestFile } from './mail-message.js';
import type { ReportLanguage } from '../i18n/report-language.js';
import {
  mailRecipients,
  type LanguageFallback,
  type MailDivision,
  type MailRecipient,
  type MailSettings,
  type SkippedRecipient,
} from './mail-recipients.js';

export interface PlannedMessage {
  /** 32 hex digits: the sent-log's key of this message. */
  readonly key: string;
  readonly division_id: number | null;
  readonly division_name: string | null;
  /** The language the message is written in. */
  readonly lang: ReportLanguage;
  readonly to: readonly MailRecipient[];
  readonly cc: readonly MailRecipient[];
  readonly files: readonly MailManifestFile[];
}

export interface MailPlan {
  readonly messages: readonly PlannedMessage[];
  readonly skipped: readonly SkippedRecipient[];
  /** Managers who read the definition's language because theirs could not be served. */
  readonly fallbacks: readonly LanguageFallback[];
  /** Divisions (or null: the whole export) not sent because `when: changed` found no change. */
  readonly unchanged: readonly (number | null)[];
}

/** The sent-log key of a message: export id, division, recipients (order and case ignored), language. */
export function messageKey(
  exportId: string,
  divisionId: number | null,
  recipients: readonly string[],
  lang: ReportLanguage,
): string {
  const set = [...new Set(recipients.map((r) => r.toLowerCase()))].sort();
  return createHash('sha256')
    .update(JSON.stringify([exportId, divisionId, set, lang]))
    .digest('hex')
    .slice(0, 32);
}

/** The divisions a split export wrote files for, in the manifest's order. */
export function divisionsOfExport(manifest: Pick<MailManifest, 'files' | 'divisions'>): number[] {
  const ids = new Set<number>();
  for (const d of manifest.divisions ?? []) ids.add(d.division_id);
  for (const f of manifest.files) if (typeof f.division_id === 'number') ids.add(f.division_id);
  return [...ids];
}

/**
 * Whether `when` lets a message go. `changed`: a division's mail when its manifest entry says it
 * changed, the whole export's when rows were added, removed or changed. A first export (nothing to
 * compare with) counts as changed, and so does an unknown (null): better a mail too many than a
 * week's report withheld.
 */
export function changedEnough(
  when: MailSettings['when'],
  manifest: Pick<MailManifest, 'divisions' | 'changes'>,
  divisionId: number | null,
): boolean {
  if (when === 'always') return true;
  if (divisionId !== null) {
    const entry = manifest.divisions?.find((d) => d.division_id === divisionId);
    return entry === undefined || entry.changed !== false;
  }
  const changes = manifest.changes;
  if (changes === undefined || changes === null) return true;
  return changes.added + changes.removed + changes.changed > 0;
}

export function planMail(
  settings: MailSettings,
  manifest: MailManifest,
  divisions: readonly MailDivision[],
): MailPlan {
  const { groups, skipped, fallbacks } = mailRecipients(settings, divisionsOfExport(manifest), divisions);
  const messages: PlannedMessage[] = [];
  const unchanged: (number | null)[] = [];
  for (const group of groups) {
    if (!changedEnough(settings.when, manifest, group.division_id)) {
      unchanged.push(group.division_id);
      continue;
    }
    const fromManifest = manifest.divisions?.find((d) => d.division_id === group.division_id)?.division_name;
    const fromUpstream = divisions.find((d) => d.id === group.division_id)?.name;
    messages.push({
      key: messageKey(
        manifest.export_id,
        group.division_id,
        [...group.to, ...group.cc].map((r) => r.address),
        group.lang,
      ),
      division_id: group.division_id,
      division_name: group.division_id === null ? null : (fromManifest ?? fromUpstream ?? null),
      lang: group.lang,
      to: group.to,
      cc: group.cc,
      files: filesOfMessage(manifest, group.division_id, settings.attach, group.lang),
    });
  }
  return { messages, skipped, fallbacks, unchanged };
}
