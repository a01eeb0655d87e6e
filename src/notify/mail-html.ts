// The HTML part of a delivery e-mail: the same words as the plain text (mail-words.ts), laid out
// for mail clients. Tables and inline styles only, because Outlook renders with Word's engine and
// Gmail drops <style> blocks in places; nothing is loaded from outside (no image, font or script),
// so the message reads the same offline and leaks no read receipt. Every text has an explicit
// colour on an explicit background, so a dark-mode client that inverts or keeps colours keeps
// them readable together; a rate under the threshold says so in words beside its red bar, so no
// meaning rests on a colour. The bars are table cells with widths and background colours, which
// every client draws. Every value reaches the markup through escapeHtml.

import { fill } from '../i18n/text-format.js';
import type { GlanceGroup } from './mail-glance.js';
import type { FileDelivery } from './mail-manifest.js';
import {
  changeText,
  comparisonText,
  figureText,
  fileWords,
  shownName,
  thresholdText,
  type MessageWords,
} from './mail-words.js';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const INK = '#111827';
const MUTED = '#4b5563';
const PAPER = '#ffffff';
const PAGE = '#f3f4f6';
const RULE = '#d1d5db';
const BAR = '#1d4ed8';
const BAR_BELOW = '#b91c1c';
const BAR_TRACK = '#e5e7eb';
/**
 * The threshold mark: a mid grey, seen on the light track and on both bars, and still on the track
 * a dark mode darkens (Chromium's forced dark keeps a dark cell dark, so an INK mark vanished).
 */
const BAR_MARK = '#6b7280';
const FONT = 'font-family:Arial,Helvetica,sans-serif';
/** Width of a bar at 100%, in pixels. */
const BAR_WIDTH = 160;

const text = (size: number, extra = ''): string =>
  `${FONT};font-size:${size}px;line-height:1.4;color:${INK};background-color:${PAPER}${extra === '' ? '' : `;${extra}`}`;

function cell(content: string, style: string, attributes = ''): string {
  return `<td${attributes === '' ? '' : ` ${attributes}`} style="${style}">${content}</td>`;
}

function heading(content: string): string {
  return `<tr>${cell(escapeHtml(content), text(16, 'font-weight:bold;padding:20px 0 6px 0'))}</tr>`;
}

function paragraph(content: string, size = 14, color = INK): string {
  return `<tr>${cell(content, text(size, `padding:4px 0;color:${color}`))}</tr>`;
}

/** One bar segment: a table cell of `width` pixels painted `color`. */
function segment(width: number, color: string): string {
  if (width <= 0) return '';
  return `<td width="${width}" height="10" bgcolor="${color}" style="width:${width}px;height:10px;background-color:${color};font-size:0;line-height:0">&nbsp;</td>`;
}

/**
 * A rate as a bar of BAR_WIDTH pixels, with a 2-pixel mark at the threshold: filled up to the
 * rate, the track beyond it.
 */
function bar(rate: number | null, threshold: number | undefined, below: boolean): string {
  const fill = Math.round((rate ?? 0) * BAR_WIDTH);
  const color = below ? BAR_BELOW : BAR;
  const cells: string[] = [];
  if (threshold === undefined) cells.push(segment(fill, color), segment(BAR_WIDTH - fill, BAR_TRACK));
  else {
    const mark = Math.min(BAR_WIDTH - 2, Math.round(threshold * BAR_WIDTH));
    if (fill <= mark)
      cells.push(
        segment(fill, color),
        segment(mark - fill, BAR_TRACK),
        segment(2, BAR_MARK),
        segment(BAR_WIDTH - mark - 2, BAR_TRACK),
      );
    else
      cells.push(
        segment(mark, color),
        segment(2, BAR_MARK),
        segment(fill - mark - 2, color),
        segment(BAR_WIDTH - fill, BAR_TRACK),
      );
  }
  return `<table role="presentation" width="${BAR_WIDTH}" cellpadding="0" cellspacing="0" border="0" style="width:${BAR_WIDTH}px;border-collapse:collapse"><tr>${cells.join('')}</tr></table>`;
}

function headlineRows(w: MessageWords): string[] {
  const label = text(14, `padding:4px 16px 4px 0;color:${MUTED}`);
  const value = text(14, 'padding:4px 16px 4px 0;font-weight:bold;text-align:right');
  const change = text(14, 'padding:4px 0;text-align:right');
  const compared = w.glance.comparison.kind === 'against';
  return w.glance.figures.map((figure) => {
    const delta = changeText(figure.change, w);
    return `<tr>${cell(escapeHtml(w.m.labels[figure.key]), label)}${cell(escapeHtml(figureText(figure, w)), value)}${
      compared ? cell(escapeHtml(delta ?? ''), change) : ''
    }</tr>`;
  });
}

function groupRow(g: GlanceGroup, w: MessageWords): string {
  const td = text(13, `padding:5px 10px 5px 0;border-top:1px solid ${RULE}`);
  const right = `${td};text-align:right;white-space:nowrap`;
  const rate = g.start === null ? w.m.notAvailable : w.f.rate(g.start);
  return `<tr>${[
    cell(escapeHtml(shownName(g.name, String(g.id))), td),
    cell(bar(g.start, w.glance.threshold, g.below), td),
    cell(`<b>${escapeHtml(rate)}</b>`, right),
    cell(escapeHtml(changeText(g.change, w) ?? ''), right),
    cell(
      g.below ? `<b style="color:${BAR_BELOW}">${escapeHtml(w.m.belowMark)}</b>` : '',
      `${td};white-space:nowrap`,
    ),
    cell(escapeHtml(w.f.integer(g.shifts)), right),
  ].join('')}</tr>`;
}

function groupsTable(w: MessageWords): string[] {
  const { glance, m } = w;
  if (glance.groups.length === 0) return [];
  const th = text(12, `padding:4px 10px 4px 0;color:${MUTED};font-weight:normal;text-align:left`);
  const thRight = `${th};text-align:right`;
  const threshold = thresholdText(w);
  return [
    heading(glance.groupsOf === 'regions' ? m.regionsHeading : m.divisionsHeading),
    ...(threshold === undefined ? [] : [paragraph(escapeHtml(threshold), 13, MUTED)]),
    `<tr><td style="${text(13)}"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse">`,
    `<tr>${[
      cell(escapeHtml(glance.groupsOf === 'regions' ? m.columns.region : m.columns.division), th),
      cell('', th),
      cell(escapeHtml(m.columns.startMatch), thRight),
      cell(escapeHtml(glance.comparison.kind === 'against' ? m.changeLabel : ''), thRight),
      cell('', th),
      cell(escapeHtml(m.columns.shifts), thRight),
    ].join('')}</tr>`,
    ...glance.groups.map((g) => groupRow(g, w)),
    '</table></td></tr>',
  ];
}

function shopsTable(w: MessageWords): string[] {
  const { glance, m, f } = w;
  if (glance.shops === undefined) return [];
  if (glance.shops.length === 0) return [heading(m.shopsHeading), paragraph(escapeHtml(m.noShops))];
  const th = text(12, `padding:4px 10px 4px 0;color:${MUTED};text-align:left`);
  const td = text(13, `padding:5px 10px 5px 0;border-top:1px solid ${RULE}`);
  const right = `${td};text-align:right;white-space:nowrap`;
  return [
    heading(m.shopsHeading),
    `<tr><td style="${text(13)}"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse">`,
    `<tr>${cell(escapeHtml(m.columns.shop), th)}${cell(escapeHtml(m.columns.region), th)}${cell(escapeHtml(m.columns.startMatch), `${th};text-align:right`)}${cell(escapeHtml(m.columns.shifts), `${th};text-align:right`)}</tr>`,
    ...glance.shops.map(
      (s) =>
        `<tr>${cell(`${escapeHtml(shownName(s.shop_sap, ''))} ${escapeHtml(shownName(s.shop_name ?? '', ''))}`.trim(), td)}${cell(
          escapeHtml(shownName(s.region_name, '')),
          td,
        )}${cell(`<b>${escapeHtml(f.rate(s.start_match_rate))}</b>`, right)}${cell(escapeHtml(f.integer(s.shifts)), right)}</tr>`,
    ),
    '</table></td></tr>',
  ];
}

function fileRow(d: FileDelivery, w: MessageWords): string {
  const { what, reason } = fileWords(d, w);
  let content =
    reason === undefined
      ? escapeHtml(fill(w.m.fileAttached, { what }))
      : escapeHtml(fill(w.m.fileNotAttached, { what, reason }));
  // Links the export made itself (a presigned URL of its own bucket), never anything the upstream sent.
  if (d.kind === 'url')
    content += ` <a href="${escapeHtml(d.url)}" style="color:${BAR};background-color:${PAPER}">${escapeHtml(w.m.download)}</a>`;
  if (d.kind === 'path') content += ` ${escapeHtml(fill(w.m.onServer, { path: d.path }))}`;
  return paragraph(content, 13);
}

/** The whole HTML document, in `w.language`. */
export function renderMailHtml(w: MessageWords): string {
  const { m } = w;
  return [
    '<!DOCTYPE html>',
    `<html lang="${escapeHtml(w.language)}" dir="ltr">`,
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light"><meta name="supported-color-schemes" content="light">',
    `<title>${escapeHtml(w.title)}</title></head>`,
    `<body style="margin:0;padding:0;background-color:${PAGE};color:${INK}">`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="${PAGE}" style="background-color:${PAGE}"><tr><td align="center" style="padding:16px 8px;background-color:${PAGE}">`,
    `<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" bgcolor="${PAPER}" style="width:600px;max-width:600px;background-color:${PAPER};color:${INK};border:1px solid ${RULE}">`,
    `<tr><td style="padding:20px 24px;background-color:${PAPER}">`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse">`,
    `<tr>${cell(escapeHtml(w.title), text(20, 'font-weight:bold;padding:0 0 4px 0'))}</tr>`,
    paragraph(`${escapeHtml(m.divisionLabel)}: <b>${escapeHtml(w.where)}</b>`, 14, INK),
    heading(m.headlineHeading),
    `<tr><td style="${text(14)}"><table role="presentation" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse">`,
    ...headlineRows(w),
    '</table></td></tr>',
    paragraph(escapeHtml(comparisonText(w)), 13, MUTED),
    ...groupsTable(w),
    ...shopsTable(w),
    heading(w.files.length === 0 ? m.noFiles : m.filesHeading),
    ...w.files.map((d) => fileRow(d, w)),
    paragraph(escapeHtml(fill(m.footer, { id: w.exportId })), 12, MUTED),
    '</table>',
    '</td></tr></table>',
    '</td></tr></table>',
    '</body></html>',
    '',
  ].join('\n');
}
