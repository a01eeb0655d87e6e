// What a notification says: the three events and the JSON body a webhook receives, built from what
// the export (or the backfill) already returned — never re-derived. Every body has an `id` (the
// same for every delivery of one event, so a receiver can drop a repeat), the event name, when it
// happened and a `text` line a Slack or Teams incoming webhook shows as it is. A failure's message
// has passed the secret rule (redact-secrets.ts) before it gets here and is cut to one short line.

import { z } from 'zod';
import type { Period } from '../domain/period.js';
import { oneLine } from '../one-line.js';
import type { ExportJobResult } from '../queue/export-job-result.js';

export const NOTIFY_EVENTS = [
  'export.published',
  'export.failed',
  'backfill.completed',
  'export.delivery_failed',
] as const;
export type NotifyEventName = (typeof NOTIFY_EVENTS)[number];

/** Longest failure message carried (an error's text can be long; a chat line should not be). */
export const FAILURE_MESSAGE_MAX = 500;

/** A published file: its path for a local folder, a presigned URL for S3 (added when sent). */
export interface NotifiedFile {
  readonly name: string;
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
  /** The file on disk (local folder destinations). */
  readonly path?: string;
  /** Where the file is inside the export, for S3: presigned into `url` when the event is sent. */
  readonly key?: string;
  readonly url?: string;
}

interface EventBase {
  readonly id: string;
  readonly occurred_at: string;
  readonly text: string;
  /** The queue job behind the event; null for `shift-export run`. */
  readonly job_id: string | null;
}

export interface ExportPublishedEvent extends EventBase {
  readonly event: 'export.published';
  /** The export definition the export ran for; absent for an export of no definition. */
  readonly definition?: string;
  readonly period: Period;
  readonly export_id: string;
  readonly counts: ExportJobResult['counts'];
  readonly statistics: ExportJobResult['statistics'];
  readonly changes?: ExportJobResult['changes'];
  readonly changes_unavailable?: ExportJobResult['changes_unavailable'];
  readonly location: string;
  readonly manifest_location: string;
  readonly files: readonly NotifiedFile[];
  readonly duration_ms: number;
}

export interface ExportFailedEvent extends EventBase {
  readonly event: 'export.failed';
  /** The export definition the export ran for; absent for an export of no definition. */
  readonly definition?: string;
  /** Null when the job's data did not even name a valid period. */
  readonly period: Period | null;
  readonly export_id: null;
  readonly attempts: number;
  readonly duration_ms: number;
  readonly error: { readonly code: string; readonly message: string };
}

export interface BackfillCompletedEvent extends EventBase {
  readonly event: 'backfill.completed';
  readonly period: Period;
  readonly formats: readonly string[];
  readonly days: number;
  readonly counts: { readonly fetched: number; readonly exported: number; readonly rejected: number };
  readonly index_location: string;
  readonly duration_ms: number;
}

/** The e-mail of a published export (`deliver.email`) could not be sent in full, for good. */
export interface ExportDeliveryFailedEvent extends EventBase {
  readonly event: 'export.delivery_failed';
  /** The export definition whose e-mail it was. */
  readonly definition: string;
  readonly period: Period;
  readonly export_id: string;
  readonly attempts: number;
  /** The messages not sent: division (null: the whole export), recipients, status and reason. */
  readonly messages: readonly {
    readonly division_id: number | null;
    readonly recipients: number;
    readonly status: 'refused' | 'failed';
    readonly reason: string;
  }[];
}

export type NotifyEvent =
  ExportPublishedEvent | ExportFailedEvent | BackfillCompletedEvent | ExportDeliveryFailedEvent;

/** What a stored event must look like to be sent (jobs outlive deploys; Redis can be edited). */
export const notifyEventSchema = z.looseObject({
  event: z.enum(NOTIFY_EVENTS),
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.+-]{0,250}$/),
  occurred_at: z.string(),
  text: z.string(),
});

const n = (value: number): string => value.toLocaleString('en-US');

function periodText(period: Period | null): string {
  if (period === null) return 'an unknown period';
  return period.from === period.to ? period.from : `${period.from}..${period.to}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? 'n/a' : `${(value * 100).toFixed(1)}%`;
}

/** The files of a published export: local ones by path, S3 ones by key (presigned when sent). */
function notifiedFiles(result: ExportJobResult, local: boolean): NotifiedFile[] {
  return result.files.map((f) => ({
    name: f.name,
    rows: f.rows,
    bytes: f.bytes,
    sha256: f.sha256,
    ...(local ? { path: `${result.location.replace(/\/+$/, '')}/${f.path}` } : { key: f.path }),
  }));
}

export interface EventContext {
  readonly jobId: string | null;
  readonly now: Date;
  /** The export definition the export ran for, named in the event (and its text). */
  readonly definition?: string | undefined;
}

/** How an event's text names the export: its definition, when it has one. */
function exportName(context: EventContext): string {
  return context.definition === undefined ? 'shift-export' : `shift-export ${context.definition}`;
}

export function exportPublishedEvent(
  result: ExportJobResult,
  context: EventContext & { readonly local: boolean },
): ExportPublishedEvent {
  const startMatch = result.statistics['start_match_rate'];
  const text =
    `${exportName(context)}: ${periodText(result.period)} published — ${n(result.counts.exported)} rows exported, ` +
    `${n(result.counts.rejected)} rejected, start match ${percent(startMatch)} (${seconds(result.duration_ms)}; ` +
    `export ${result.export_id})`;
  return {
    event: 'export.published',
    id: `export.published.${result.export_id}`,
    occurred_at: context.now.toISOString(),
    text,
    job_id: context.jobId,
    ...(context.definition === undefined ? {} : { definition: context.definition }),
    period: result.period,
    export_id: result.export_id,
    counts: result.counts,
    statistics: result.statistics,
    ...(result.changes === undefined ? {} : { changes: result.changes }),
    ...(result.changes_unavailable === undefined ? {} : { changes_unavailable: result.changes_unavailable }),
    location: result.location,
    manifest_location: result.manifest_location,
    files: notifiedFiles(result, context.local),
    duration_ms: result.duration_ms,
  };
}

export interface ExportFailure {
  readonly period: Period | null;
  /** Stable code of the failure (`WFM_AUTH`, `DEST_S3`…); `ERROR` for an error without one. */
  readonly code: string;
  /** Already free of secrets (redact-secrets.ts). */
  readonly message: string;
  readonly attempts: number;
  readonly durationMs: number;
  /** What makes the event unique: the job id and its creation time, or the run's start. */
  readonly occurrence: string;
}

export function exportFailedEvent(failure: ExportFailure, context: EventContext): ExportFailedEvent {
  let message = oneLine(failure.message);
  if (message.length > FAILURE_MESSAGE_MAX) message = `${message.slice(0, FAILURE_MESSAGE_MAX - 1)}…`;
  const attempts = failure.attempts === 1 ? '1 attempt' : `${n(failure.attempts)} attempts`;
  return {
    event: 'export.failed',
    id: `export.failed.${failure.occurrence}`,
    occurred_at: context.now.toISOString(),
    text: `${exportName(context)}: export of ${periodText(failure.period)} FAILED after ${attempts}: ${failure.code}: ${message}`,
    job_id: context.jobId,
    ...(context.definition === undefined ? {} : { definition: context.definition }),
    period: failure.period,
    export_id: null,
    attempts: failure.attempts,
    duration_ms: failure.durationMs,
    error: { code: failure.code, message },
  };
}

export interface BackfillSummary {
  readonly period: Period;
  readonly formats: readonly string[];
  readonly days: number;
  readonly totals: { readonly fetched: number; readonly exported: number; readonly rejected: number };
  readonly indexLocation: string;
  readonly durationMs: number;
  /** The parent job's id and creation time. */
  readonly occurrence: string;
}

export function backfillCompletedEvent(
  summary: BackfillSummary,
  context: EventContext,
): BackfillCompletedEvent {
  return {
    event: 'backfill.completed',
    id: `backfill.completed.${summary.occurrence}`,
    occurred_at: context.now.toISOString(),
    text:
      `shift-export: backfill of ${periodText(summary.period)} completed — ${n(summary.days)} days, ` +
      `${n(summary.totals.exported)} rows exported, ${n(summary.totals.rejected)} rejected`,
    job_id: context.jobId,
    period: summary.period,
    formats: summary.formats,
    days: summary.days,
    counts: summary.totals,
    index_location: summary.indexLocation,
    duration_ms: summary.durationMs,
  };
}

export interface DeliveryFailure {
  readonly definition: string;
  readonly period: Period;
  readonly exportId: string;
  readonly attempts: number;
  readonly messages: ExportDeliveryFailedEvent['messages'];
}

export function exportDeliveryFailedEvent(
  failure: DeliveryFailure,
  context: EventContext,
): ExportDeliveryFailedEvent {
  const messages = failure.messages.map((m) => {
    let reason = oneLine(m.reason);
    if (reason.length > FAILURE_MESSAGE_MAX) reason = `${reason.slice(0, FAILURE_MESSAGE_MAX - 1)}…`;
    return { ...m, reason };
  });
  const first = messages[0]?.reason ?? 'no reason given';
  const count = messages.length === 1 ? '1 message' : `${n(messages.length)} messages`;
  return {
    event: 'export.delivery_failed',
    id: `export.delivery_failed.${idPart(failure.definition)}.${idPart(failure.exportId)}`,
    occurred_at: context.now.toISOString(),
    text:
      `shift-export: e-mail of ${failure.definition} for ${periodText(failure.period)} FAILED: ` +
      `${count} not sent after ${n(failure.attempts)} attempts (${first})`,
    job_id: context.jobId,
    definition: failure.definition,
    period: failure.period,
    export_id: failure.exportId,
    attempts: failure.attempts,
    messages,
  };
}

/** A string usable in event and job ids: no ":" (BullMQ's separator), nothing a header refuses. */
export function idPart(text: string): string {
  return text.replace(/[^A-Za-z0-9_.+-]/g, '_');
}
