// The workbook the way a person checks it: a demo-shaped export (a sandbox week, ~1,200 shifts, a
// few rejected rows), printed by LibreOffice to PDF, its pages counted with pdfinfo and read with
// pdftotext. Every summary sheet prints one page wide; the Shifts sheet six pages across at a
// readable scale. Sheets print in workbook order, each page topped by its header row, which is how
// a page is told to belong to a sheet. The first page is the Overview, rendered by pdftoppm: its
// charts are there when LibreOffice drew the bars and the threshold line in their colours (nothing
// else on the sheet is coloured).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Column } from '../../src/domain/column.js';
import { REJECTED_COLUMNS } from '../../src/domain/rejected-row.js';
import { SHIFT_COLUMNS } from '../../src/domain/shift-columns.js';
import {
  DAY_SUMMARY_COLUMNS,
  DIVISION_SUMMARY_COLUMNS,
  REGION_SUMMARY_COLUMNS,
  SHOP_SUMMARY_COLUMNS,
  USER_SUMMARY_COLUMNS,
} from '../../src/domain/summary-columns.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import {
  libreOfficePdf,
  NO_SOFFICE_REASON,
  pdfPageCount,
  pdfPagePicture,
  pdfPageTexts,
  type PagePicture,
} from '../support/workbook-readers.js';
import { runConfiguredExport } from '../support/run-configured-export.js';

const PERIOD = { from: '2024-03-25', to: '2024-03-31' };

/** A printed table sheet: the first line of each of its pages starts with `first` and holds `second`. */
interface PrintedSheet {
  readonly name: string;
  readonly first: string;
  readonly second: string;
  /** The last column's header: on every page's header line when the sheet is one page wide. */
  readonly last: string;
}

function printed<R>(name: string, columns: readonly Column<R>[]): PrintedSheet {
  const header = (i: number): string => columns[i]?.header ?? '';
  return { name, first: header(0), second: header(1), last: header(columns.length - 1) };
}

const TABLES: readonly PrintedSheet[] = [
  printed('Shifts', SHIFT_COLUMNS),
  printed('By division', DIVISION_SUMMARY_COLUMNS),
  printed('By day', DAY_SUMMARY_COLUMNS),
  printed('By region', REGION_SUMMARY_COLUMNS),
  printed('By shop', SHOP_SUMMARY_COLUMNS),
  printed('By user', USER_SUMMARY_COLUMNS),
  printed('Rejected', REJECTED_COLUMNS),
];
const SUMMARIES = TABLES.slice(1, 6);

/** A page's lines with text, trimmed: the printed page header first, the footer last. */
function linesOf(page: string): string[] {
  return page
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/**
 * A page's header line(s) of its table, spaces collapsed: the two lines under the printed page
 * header (a long header may wrap onto the second).
 */
function headerOf(page: string): string {
  return linesOf(page).slice(1, 3).join(' ').replace(/\s+/g, ' ');
}

/** Sheet name to its pages (0-based), found in workbook order from `from` on. */
function pagesBySheet(headers: readonly string[], from: number): Map<string, number[]> {
  const starts = new Map<string, number>();
  let at = from;
  for (const table of TABLES) {
    const start = headers.findIndex(
      (header, i) => i >= at && header.startsWith(table.first) && header.includes(table.second),
    );
    if (start < 0) throw new Error(`no page of ${table.name} after page ${at + 1}`);
    starts.set(table.name, start);
    at = start + 1;
  }
  const names = TABLES.map((t) => t.name);
  const about = headers.findIndex((header, i) => i >= at && header.startsWith('Shift export'));
  const ends = [...names.slice(1).map((name) => starts.get(name) ?? 0), about];
  return new Map(
    names.map((name, i) => {
      const start = starts.get(name) ?? 0;
      return [name, Array.from({ length: (ends[i] ?? start) - start }, (_, k) => start + k)];
    }),
  );
}

/** Pixels of a colour (within a small tolerance) inside a region given as fractions of the page. */
function pixelsOf(
  picture: PagePicture,
  rgb: readonly [number, number, number],
  region: { readonly left: number; readonly top: number; readonly right: number; readonly bottom: number },
): number {
  let count = 0;
  const [r, g, b] = rgb;
  for (let y = Math.floor(region.top * picture.height); y < region.bottom * picture.height; y++) {
    for (let x = Math.floor(region.left * picture.width); x < region.right * picture.width; x++) {
      const at = (y * picture.width + x) * 3;
      const near =
        Math.abs((picture.rgb[at] ?? 0) - r) < 40 &&
        Math.abs((picture.rgb[at + 1] ?? 0) - g) < 40 &&
        Math.abs((picture.rgb[at + 2] ?? 0) - b) < 40;
      if (near) count++;
    }
  }
  return count;
}

/** The bars' blue and the threshold's red (chart-parts.ts). */
const BAR_BLUE = [0x00, 0x72, 0xb2] as const;
const THRESHOLD_RED = [0xc0, 0x00, 0x00] as const;

let sandbox: RunningSandbox;
let dest: string;
let exported: number;
let pdf: string;

beforeAll(async () => {
  if (NO_SOFFICE_REASON !== undefined) return;
  // The demo's shape at a quarter of its rows: 5,000 shifts over the sandbox's span, a week
  // exported, a few rows invalid. Enough Shifts pages to count (over 150), few enough that
  // LibreOffice prints them well within its timeout on a busy machine (the demo's 20,000 took over
  // 540 s there with both cores busy).
  sandbox = await startTestSandbox({
    rows: 5_000,
    faults: { wfm_timers: { invalidRowRate: 0.002, duplicateRowRate: 0.001 } },
  });
  dest = mkdtempSync(join(tmpdir(), 'workbook-print-'));
  const env = { EXPORT_DEST: dest, WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_READER_TOKEN };
  const { result } = await runConfiguredExport(env, PERIOD, ['xlsx']);
  exported = result.manifest.counts.exported;
  pdf = await libreOfficePdf(join(result.location, 'shifts.xlsx'), join(dest, 'pdf'));
}, 900_000);

afterAll(async () => {
  await sandbox?.close();
  if (dest !== undefined) rmSync(dest, { recursive: true, force: true });
});

describe.skipIf(NO_SOFFICE_REASON !== undefined)(
  `the workbook printed by LibreOffice${NO_SOFFICE_REASON === undefined ? '' : ` (skipped: ${NO_SOFFICE_REASON})`}`,
  () => {
    it('draws the Overview first, its charts beside the headline: bars and the threshold line', async () => {
      const pages = await pdfPageTexts(pdf);
      const headers = pages.map(headerOf);
      expect(headers[0]).toMatch(/^Shifts 2024-03-25 to 2024-03-31 Period/);
      // The daily chart's axis shows dates as its cells do, never their serial day numbers
      // (45376 for 2024-03-25), which an axis with a number format of its own showed.
      expect(pages[0]).not.toMatch(/\b45\d{3}\b/);
      const page = await pdfPagePicture(pdf, 1, 60, process.env['OVERVIEW_PNG']);
      // The charts sit right of the headline (columns D to M), the bars in the upper half.
      const bars = { left: 0.4, top: 0, right: 1, bottom: 0.45 };
      const left = { left: 0, top: 0, right: 0.4, bottom: 1 };
      expect(pixelsOf(page, BAR_BLUE, bars)).toBeGreaterThan(2000);
      expect(pixelsOf(page, THRESHOLD_RED, bars)).toBeGreaterThan(50);
      // Nothing but the charts is drawn in colour.
      expect(pixelsOf(page, BAR_BLUE, left)).toBe(0);
      expect(pixelsOf(page, THRESHOLD_RED, left)).toBe(0);
      // The daily lines: the legend's and lines' colours in the lower half of the chart column.
      const lines = { left: 0.4, top: 0.4, right: 1, bottom: 0.75 };
      expect(pixelsOf(page, [0xe6, 0x9f, 0x00], lines)).toBeGreaterThan(50);
    });

    it('heads every page with its sheet and the period, and numbers it at the bottom', async () => {
      const pages = (await pdfPageTexts(pdf)).map(linesOf);
      const headers = pages.map((lines) => lines.join('\n')).map(headerOf);
      const sheetOf = new Map<number, string>();
      for (const [name, own] of pagesBySheet(headers, 0)) for (const p of own) sheetOf.set(p, name);
      sheetOf.set(0, 'Overview');
      const wrong = pages.flatMap((lines, p) => {
        const top = (lines[0] ?? '').replace(/\s+/g, ' ');
        const bottom = lines[lines.length - 1] ?? '';
        const sheet = sheetOf.get(p);
        const problems = [];
        if (!top.endsWith(' Shifts 2024-03-25 to 2024-03-31')) problems.push(`top: ${top}`);
        if (sheet !== undefined && !top.startsWith(`${sheet} `)) problems.push(`not ${sheet}: ${top}`);
        if (bottom !== `Page ${p + 1} of ${pages.length}`) problems.push(`bottom: ${bottom}`);
        return problems.map((problem) => `page ${p + 1}: ${problem}`);
      });
      expect(wrong.slice(0, 10)).toEqual([]);
    });

    it('prints every summary sheet one page wide', async () => {
      const headers = (await pdfPageTexts(pdf)).map(headerOf);
      const pages = pagesBySheet(headers, 0);
      for (const sheet of SUMMARIES) {
        const own = pages.get(sheet.name) ?? [];
        expect(own.length, sheet.name).toBeGreaterThan(0);
        // One page wide: each page starts with the first column and reaches the last; a second
        // page across would start elsewhere (no key columns are repeated any more).
        const wide = own.filter(
          (p) => !(headers[p]?.startsWith(sheet.first) && headers[p]?.includes(sheet.last)),
        );
        expect(
          wide.map((p) => `page ${p + 1}: ${headers[p]}`),
          sheet.name,
        ).toEqual([]);
      }
    });

    it('prints the Shifts sheet six pages across at a readable scale, in a sensible number of pages', async () => {
      expect(exported).toBeGreaterThan(1000);
      const headers = (await pdfPageTexts(pdf)).map(headerOf);
      const shifts = pagesBySheet(headers, 0).get('Shifts') ?? [];
      // Every page repeats the keys (Shift ID, Business date) before its slice of the columns.
      expect(shifts.filter((p) => !headers[p]?.startsWith('Shift ID Business date'))).toEqual([]);
      // Between 40 and 70 rows a page, six pages across: not the 100% slices of five columns
      // (2,587 pages for the demo before), nor shrunk to one unreadable page width.
      expect(shifts.length).toBeGreaterThanOrEqual(6 * Math.ceil(exported / 70));
      expect(shifts.length).toBeLessThanOrEqual(6 * Math.ceil(exported / 40));
      const total = await pdfPageCount(pdf);
      expect(total).toBe(headers.length);
      expect(total).toBeLessThan(shifts.length + 40);
    });
  },
);
