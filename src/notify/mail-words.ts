// What both parts of a delivery e-mail say, worded in the reader's language: a figure, a change in
// percentage points, the comparison line, the threshold line, a file's line. The plain text
// (mail-message.ts) and the HTML (mail-html.ts) lay the same words out. Names of the upstream's
// come through shownName: no control or bidi character reaches a line. Pure.

import type { MailMessages } from '../i18n/mail/mail-messages.js';
import type { ReportLanguage } from '../i18n/report-language.js';
import { fill, type TextFormat } from '../i18n/text-format.js';
import type { Glance, GlanceFigure } from './mail-glance.js';
import type { FileDelivery } from './mail-manifest.js';
import { displayName } from './mail-recipients.js';

/** A name of the upstream's as a line may hold it: no control or bidi character, at most 100 characters. */
export function shownName(text: string, fallback: string): string {
  return displayName(text) ?? fallback;
}

/** A file size in the reader's units and separators: 512 B, 1.5 KB / 1,5 КБ. */
export function sizeText(bytes: number, f: TextFormat, m: MailMessages): string {
  if (bytes < 1024) return `${f.integer(bytes)} ${m.sizeUnits.bytes}`;
  if (bytes < 1024 * 1024) return `${f.decimal(bytes / 1024)} ${m.sizeUnits.kilobytes}`;
  return `${f.decimal(bytes / (1024 * 1024))} ${m.sizeUnits.megabytes}`;
}

/** Everything both parts say, worded in the reader's language; names cleaned, not yet escaped. */
export interface MessageWords {
  readonly language: ReportLanguage;
  readonly m: MailMessages;
  readonly f: TextFormat;
  readonly title: string;
  /** The division's label, `Name (id)`, or "all divisions". */
  readonly where: string;
  readonly period: string;
  readonly glance: Glance;
  readonly exportId: string;
  readonly files: readonly FileDelivery[];
}

/** A figure's value as the reader writes it. */
export function figureText(figure: GlanceFigure, w: Pick<MessageWords, 'f' | 'm'>): string {
  if (figure.value === null) return w.m.notAvailable;
  switch (figure.kind) {
    case 'count':
      return w.f.integer(figure.value);
    case 'hours':
      return w.f.decimal(figure.value);
    case 'rate':
      return w.f.rate(figure.value);
  }
}

/** A change in percentage points, `+1.2 pp` / `−0,4 п. п.`; undefined when there is none. */
export function changeText(change: number | null, w: Pick<MessageWords, 'f' | 'm'>): string | undefined {
  return change === null ? undefined : fill(w.m.percentPoints, { points: w.f.percentPoints(change) });
}

/** What the comparison line says. */
export function comparisonText(w: Pick<MessageWords, 'glance' | 'm' | 'f'>): string {
  const c = w.glance.comparison;
  switch (c.kind) {
    case 'first':
      return w.m.firstExport;
    case 'no_figures':
      return fill(w.m.noPreviousFigures, { period: w.f.period(c.period.from, c.period.to) });
    case 'against':
      return fill(w.m.comparedWith, { period: w.f.period(c.period.from, c.period.to) });
  }
}

/** `{below} of {total} below the threshold of {rate}`; undefined without a threshold or a rate. */
export function thresholdText(w: Pick<MessageWords, 'glance' | 'm' | 'f'>): string | undefined {
  const { threshold, groups } = w.glance;
  const rated = groups.filter((g) => g.start !== null);
  if (threshold === undefined || rated.length === 0) return undefined;
  return fill(w.m.belowThreshold, {
    below: w.f.integer(rated.filter((g) => g.below).length),
    total: w.f.integer(rated.length),
    rate: w.f.rate(threshold),
  });
}

/** A file's line: what it is, and whether it is attached or where it is instead. */
export function fileWords(
  d: FileDelivery,
  w: Pick<MessageWords, 'f' | 'm'>,
): { readonly what: string; readonly reason: string | undefined } {
  const what = fill(w.m.fileWhat, {
    name: d.file.name,
    size: sizeText(d.file.bytes, w.f, w.m),
    rows: w.f.count(w.m.rows, d.file.rows),
  });
  if (d.kind === 'attached') return { what, reason: undefined };
  const tooLarge = fill(w.m.tooLarge, { size: sizeText(d.limitBytes, w.f, w.m) });
  return { what, reason: d.kind === 'missing' ? `${tooLarge}; ${w.m.noLink}` : tooLarge };
}
