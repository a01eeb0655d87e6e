// The export threads on their own: a cut worked on a thread is what the export's thread makes of
// it, a cut that is not JSON comes back as the 'malformed' error a wrong guess is told by, and the
// threads say what they hold, for EXPORT_MEMORY_MB; with a workbook, a thread renders a cut's
// exported rows as the Shifts sheet holds them, once placed, from the records it kept.

import { afterEach, describe, expect, it } from 'vitest';
import { CutWorker, type CutWorkSetup } from '../../src/export/cut-work.js';
import { ShiftThreads } from '../../src/export/shift-threads.js';
import type { SheetRows } from '../../src/export/sheet-rows-work.js';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import { renderShiftRowsXml, shiftRowValues } from '../../src/render/xlsx/shift-rows-xml.js';
import { ShiftsWorkbookWriter } from '../../src/render/xlsx/shifts-workbook-writer.js';
import { Writable } from 'node:stream';
import { JsonArrayScanError } from '../../src/wfm/json-array-scan-error.js';
import type { ScannedCut } from '../../src/wfm/scanned-cut.js';

const SETUP: CutWorkSetup = {
  period: { from: '2024-03-01', to: '2024-03-31' },
  divisions: new Map(),
  filter: undefined,
  csv: { delimiter: ',', decimal: '.', bom: false },
};

const ROW = {
  id: 7,
  user_id: 1,
  user_login: 'ivanova',
  user_org_level: 'SHOP',
  user_position: 'Cashier',
  user_display_name: 'Ivanova',
  division_id: 1,
  division_name: 'North',
  region_id: 2,
  region_name: 'Lakes',
  shop_id: 3,
  shop_sap: 'S3',
  shop_locality: null,
  start_time: '2024-03-05T06:00:00',
  start_time_offset: 180,
  finish_time: '2024-03-05T14:00:00',
  finish_time_offset: 180,
  duration: 28800,
  start_location_distance: 12,
  start_location_match: true,
  finish_location_distance: null,
  finish_location_match: null,
  auto_finished: false,
};

function cutOf(text: string): ScannedCut {
  return { bytes: Buffer.from(text), start: 1, end: text.length - 1, guessed: true };
}

let threads: ShiftThreads | undefined;
afterEach(async () => {
  await threads?.close();
  threads = undefined;
});

describe('ShiftThreads', () => {
  it('works a cut on a thread as the export thread works it, and reports what the thread holds', async () => {
    const text = JSON.stringify([ROW, { ...ROW, id: 8 }, { id: 'x' }]);
    const here = new CutWorker(SETUP).work(cutOf(text));
    threads = new ShiftThreads(2, SETUP);
    expect(threads.heldBytes()).toBe(0);
    const there = await threads.parse(cutOf(text));
    const bytes = (array: Uint8Array | undefined): Buffer => Buffer.from(array ?? []);
    expect(here.facts.length).toBeGreaterThan(0);
    expect({ ...there.batch, csv: bytes(there.batch.csv), hashes: bytes(there.batch.hashes) }).toEqual({
      ...here,
      seq: 0,
      csv: bytes(here.csv),
      hashes: bytes(here.hashes),
    });
    expect(Array.from(there.ids)).toEqual([7, 8, Number.NaN]);
    expect(there.batch.rejected).toHaveLength(1);
    expect(threads.heldBytes()).toBeGreaterThan(0);
    await threads.close();
    expect(threads.heldBytes()).toBe(0);
  });

  it('answers a cut that is not JSON with the malformed error a wrong guess is known by', async () => {
    threads = new ShiftThreads(2, SETUP);
    const wrong = threads.parse(cutOf('[{"comment":"a}]'));
    await expect(wrong).rejects.toBeInstanceOf(JsonArrayScanError);
    await expect(wrong).rejects.toMatchObject({ kind: 'malformed' });
    // The thread goes on: the next cut is worked.
    expect((await threads.parse(cutOf(JSON.stringify([ROW])))).ids[0]).toBe(7);
  });
});

/** The style ids a workbook has registered once it has written `record`. */
function stylesAfter(record: ShiftRecord): ReturnType<ShiftsWorkbookWriter['shiftStyles']> {
  const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const workbook = new ShiftsWorkbookWriter(sink, {
    createdAt: new Date('2024-04-01T00:00:00Z'),
    creator: 'test',
    matchRateThreshold: 0.8,
  });
  void workbook.addShift(record);
  const styles = workbook.shiftStyles();
  void workbook.abort(new Error('only its styles were wanted'));
  return styles;
}

function xmlOf(rows: SheetRows): { xml: string; pieceRows: readonly number[]; pieceEnds: readonly number[] } {
  if (!('xml' in rows)) throw new Error('the rows came back as values');
  return {
    xml: Buffer.from(rows.xml).toString('utf8'),
    pieceRows: rows.pieceRows,
    pieceEnds: rows.pieceEnds,
  };
}

describe('sheet rows on export threads', () => {
  const text = JSON.stringify(
    [7, 8, 9, 10, 11].map((id) => ({ ...ROW, id })).concat([{ ...ROW, id: 12, duration: -1 }]),
  );
  const records = new CutWorker(SETUP).workKeepingRecords(cutOf(text)).records;
  const styles = stylesAfter(records[0] as ShiftRecord);

  it('renders the kept records of a cut on the thread that worked it, split where a sheet fills', async () => {
    threads = new ShiftThreads(2, { ...SETUP, sheetRows: true });
    await threads.parse(cutOf(JSON.stringify([{ ...ROW, id: 1 }])));
    const cut = (await threads.parse(cutOf(text))).batch;
    expect(cut.seq).toBe(1);
    // Rows 8 and 10 were repeats; the sheet holds 3 data rows (2 to 4) and row 4 is the next free.
    const place = { firstRow: 4, sheetRowLimit: 3, styles };
    const keep = Uint8Array.from([1, 0, 1, 0, 1]);
    const rows = xmlOf(await threads.renderSheetRows({ ...place, seq: 1, from: 0, keep, last: false }));
    const [r7, , r9, , r11] = records as ShiftRecord[];
    const first = renderShiftRowsXml([r7 as ShiftRecord], 4, styles)?.toString('utf8') ?? '';
    const next =
      renderShiftRowsXml([r9 as ShiftRecord, r11 as ShiftRecord], 2, styles)?.toString('utf8') ?? '';
    expect(first).toContain('<row r="4"');
    expect(rows).toEqual({
      xml: first + next,
      pieceRows: [1, 2],
      pieceEnds: [Buffer.byteLength(first), Buffer.byteLength(first + next)],
    });
    // A later range of the cut, its last: from its fourth admitted row on.
    const tail = await threads.renderSheetRows({
      ...place,
      firstRow: 2,
      seq: 1,
      from: 3,
      keep: Uint8Array.from([1, 1]),
      last: true,
    });
    expect(xmlOf(tail).pieceRows).toEqual([2]);
    expect(xmlOf(tail).xml).toContain('<row r="3"');
    // Its records are gone: asked again, the thread fails the export.
    await expect(
      threads.renderSheetRows({ ...place, seq: 1, from: 0, keep, last: true }),
    ).rejects.toMatchObject({
      code: 'EXPORT_THREAD_FAILED',
    });
  });

  it('sends the rows back as their values when one needs a style the workbook has not registered', async () => {
    threads = new ShiftThreads(2, { ...SETUP, sheetRows: true });
    const cut = (await threads.parse(cutOf(text))).batch;
    const none = { columns: styles.columns.map(() => null), unstyled: [], row: null };
    const keep = Uint8Array.from([0, 1, 1, 0, 0]);
    const rows = await threads.renderSheetRows({
      firstRow: 2,
      sheetRowLimit: 100,
      styles: none,
      seq: cut.seq ?? -1,
      from: 0,
      keep,
      last: true,
    });
    expect(rows).toEqual({
      values: [records[1], records[2]].map((record) => shiftRowValues(record as ShiftRecord)),
    });
  });
});
