// A delivery e-mail's subject, plain text and HTML, in the reader's language: they name the
// definition, the period and the division, show the period at a glance (mail-glance.ts: headline
// figures, regions ranked beside the threshold, the lowest shops, the change against the previous
// period) and list the files. The HTML part says the same as the text (mail-html.ts). Pure:
// manifests in, message out. Every name of the upstream's loses its control characters and bidi
// controls before it reaches a line, and is escaped in the HTML.

import { mailMessages } from '../i18n/mail/mail-catalog.js';
import type { ReportLanguage } from '../i18n/report-language.js';
import { fill, textFormat } from '../i18n/text-format.js';
import { periodGlance, type PreviousPublished } from './mail-glance.js';
import { renderMailHtml } from './mail-html.js';
import type { FileDelivery, MailManifest, MailManifestDivision } from './mail-manifest.js';
import {
  changeText,
  comparisonText,
  fileWords,
  figureText,
  shownName,
  thresholdText,
  type MessageWords,
} from './mail-words.js';

export { escapeHtml } from './mail-html.js';
export {
  filesOfMessage,
  formatOfFile,
  isAttachable,
  type FileDelivery,
  type MailManifest,
  type MailManifestDivision,
  type MailManifestFile,
} from './mail-manifest.js';

export interface MessageContent {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** The language both parts are written in (Content-Language, `<html lang>`). */
  readonly language: ReportLanguage;
}

export interface MessageFacts {
  readonly definition: string;
  readonly manifest: MailManifest;
  /** The division of the message; null for the whole export's. */
  readonly division:
    MailManifestDivision | { readonly division_id: number; readonly division_name: string } | null;
  readonly files: readonly FileDelivery[];
  /** The reader's language. */
  readonly language: ReportLanguage;
  /** The definition's previous period as published; undefined when there is none (its first export). */
  readonly previous?: PreviousPublished | undefined;
}

function fileLine(d: FileDelivery, w: MessageWords): string {
  const { what, reason } = fileWords(d, w);
  if (reason === undefined) return `- ${fill(w.m.fileAttached, { what })}`;
  const line = `- ${fill(w.m.fileNotAttached, { what, reason })}`;
  if (d.kind === 'url') return `${line} ${fill(w.m.downloadLine, { url: d.url })}`;
  if (d.kind === 'path') return `${line} ${fill(w.m.onServer, { path: d.path })}`;
  return line;
}

function plainText(w: MessageWords): string {
  const { m, f, glance } = w;
  const lines = [w.title, `${m.divisionLabel}: ${w.where}`, '', m.headlineHeading];
  for (const figure of glance.figures) {
    const change = changeText(figure.change, w);
    lines.push(
      `${m.labels[figure.key]}: ${figureText(figure, w)}${change === undefined ? '' : ` (${change})`}`,
    );
  }
  lines.push('', comparisonText(w));
  if (glance.groups.length > 0) {
    lines.push('', glance.groupsOf === 'regions' ? m.regionsHeading : m.divisionsHeading);
    const threshold = thresholdText(w);
    if (threshold !== undefined) lines.push(threshold);
    glance.groups.forEach((g, i) => {
      const rate = g.start === null ? m.notAvailable : f.rate(g.start);
      const change = changeText(g.change, w);
      lines.push(
        `${i + 1}. ${shownName(g.name, String(g.id))}: ${rate}${change === undefined ? '' : ` (${change})`}` +
          `${g.below ? ` — ${m.belowMark}` : ''}, ${f.count(m.shifts, g.shifts)}`,
      );
    });
  }
  if (glance.shops !== undefined) {
    lines.push('', m.shopsHeading);
    if (glance.shops.length === 0) lines.push(m.noShops);
    glance.shops.forEach((s, i) => {
      const name = [s.shop_sap, s.shop_name ?? '']
        .map((part) => shownName(part, ''))
        .join(' ')
        .trim();
      lines.push(
        `${i + 1}. ${name}, ${shownName(s.region_name, '')}: ${f.rate(s.start_match_rate)}, ${f.count(m.shifts, s.shifts)}`,
      );
    });
  }
  lines.push(
    '',
    w.files.length === 0 ? m.noFiles : `${m.filesHeading}:`,
    ...w.files.map((d) => fileLine(d, w)),
  );
  lines.push('', fill(m.footer, { id: w.exportId }), '');
  return lines.join('\n');
}

/** Subject, plain text and HTML of one message, in `facts.language`. No value of the upstream's reaches them unescaped. */
export function composeMessage(facts: MessageFacts): MessageContent {
  const language = facts.language;
  const m = mailMessages(language);
  const f = textFormat(language);
  const period = f.period(facts.manifest.period.from, facts.manifest.period.to);
  const d = facts.division;
  const where =
    d === null
      ? m.allDivisions
      : `${shownName(d.division_name, fill(m.unnamedDivision, { id: d.division_id }))} (${d.division_id})`;
  // A division the manifest does not list (its files are there, its entry is not) has no figures
  // of its own; it never gets the whole export's, which would name the other divisions.
  const full = d === null ? null : 'shifts' in d ? d : { ...d, shifts: 0, changed: null };
  const computed = periodGlance(facts.manifest, full, facts.previous);
  const glance =
    d !== null && !('shifts' in d)
      ? { ...computed, figures: computed.figures.filter((g) => g.key !== 'shifts') }
      : computed;
  const words: MessageWords = {
    language,
    m,
    f,
    title: fill(m.title, { definition: facts.definition, period }),
    where,
    period,
    glance,
    exportId: facts.manifest.export_id,
    files: facts.files,
  };
  const shifts = glance.figures.find((g) => g.key === 'shifts');
  const start = glance.figures.find((g) => g.key === 'startMatchRate');
  const summary = [
    shifts?.value === null || shifts?.value === undefined ? undefined : f.count(m.shifts, shifts.value),
    start?.value === null || start?.value === undefined
      ? undefined
      : fill(m.subjectStart, { rate: f.rate(start.value) }),
  ].filter((part) => part !== undefined);
  const subject = fill(summary.length === 0 ? m.subject : m.subjectWithSummary, {
    definition: facts.definition,
    where,
    period,
    summary: summary.join(', '),
  });
  return { subject, text: plainText(words), html: renderMailHtml(words), language };
}
