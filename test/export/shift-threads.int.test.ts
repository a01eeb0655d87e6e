// The export threads on their own: a cut worked on a thread is what the export's thread makes of
// it, a cut that is not JSON comes back as the 'malformed' error a wrong guess is told by, and the
// threads say what they hold, for EXPORT_MEMORY_MB; with a workbook, a thread renders a cut's
// exported rows as the Shifts sheet holds them, once placed, from the records it kept; a run of a
// division spool's lines is worked on a thread into the same worked cut as the rows they came from.

import { afterEach, describe, expect, it } from 'vitest';
import { CutWorker, LABEL, LABELS, type CutWorkSetup } from '../../src/export/cut-work.js';
import { ShiftThreads } from '../../src/export/shift-threads.js';
import { spoolLine } from '../../src/export/division-spool.js';
import type { SheetRows } from '../../src/export/sheet-rows-work.js';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import { renderShiftRowsXml, shiftRowValues } from '../../src/render/xlsx/shift-rows-xml.js';
import { cutTextIds, UNSEEN, NO_SHARED_TEXTS, SharedTexts } from '../../src/render/xlsx/shared-texts.js';
import { ShiftsWorkbookWriter } from '../../src/render/xlsx/shifts-workbook-writer.js';
import { Writable } from 'node:stream';
import { JsonArrayScanError } from '../../src/wfm/json-array-scan-error.js';
import { JsonArrayScanner } from '../../src/wfm/json-array-scanner.js';
import { ParsedCuts, type CutParser } from '../../src/wfm/parsed-cuts.js';
import type { WorkedCut } from '../../src/export/cut-work.js';
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

/** A cut in a buffer of its own, larger than the cut, as the scanner's are (CutBuffers). */
function cutOf(text: string): ScannedCut {
  const bytes = Buffer.allocUnsafeSlow(64 * 1024);
  const length = bytes.write(text);
  return { bytes: bytes.subarray(0, length), start: 1, end: text.length - 1, guessed: true };
}

/** A worked cut as compared: its arrays' contents, not the buffer they are carved from nor its number. */
function sameAs(worked: WorkedCut): object {
  const bytes = (array: Uint8Array | undefined): Buffer => Buffer.from(array ?? []);
  return {
    ...worked,
    buffer: undefined,
    seq: undefined,
    csv: bytes(worked.csv),
    hashes: bytes(worked.hashes),
  };
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
    expect(here.facts.length).toBeGreaterThan(0);
    expect(there.batch.seq).toBe(0);
    expect(sameAs(there.batch)).toEqual(sameAs(here));
    expect(Array.from(there.ids)).toEqual([7, 8, Number.NaN]);
    expect(there.batch.rejected).toHaveLength(1);
    expect(threads.heldBytes()).toBeGreaterThan(0);
    await threads.close();
    expect(threads.heldBytes()).toBe(0);
  });

  it("moves the cut's buffer to the thread and back, not a copy of it", async () => {
    threads = new ShiftThreads(2, SETUP);
    const text = JSON.stringify([ROW]);
    const cut = cutOf(text);
    const buffer = cut.bytes.buffer;
    const parsed = await threads.parse(cut);
    // Moved away: the cut's own view is empty now.
    expect(buffer.byteLength).toBe(0);
    expect(cut.bytes.length).toBe(0);
    // And back, whole, for the scanner's next cut.
    expect(parsed.bytes?.buffer.byteLength).toBe(64 * 1024);
    expect(parsed.bytes?.toString()).toBe(text);
  });

  it('answers a cut that is not JSON with the malformed error a wrong guess is known by', async () => {
    threads = new ShiftThreads(2, SETUP);
    const wrong = threads.parse(cutOf('[{"comment":"a}]'));
    await expect(wrong).rejects.toBeInstanceOf(JsonArrayScanError);
    await expect(wrong).rejects.toMatchObject({ kind: 'malformed' });
    // The thread goes on: the next cut is worked.
    expect((await threads.parse(cutOf(JSON.stringify([ROW])))).ids[0]).toBe(7);
  });

  it('reads a body whose guessed cuts go wrong, their buffers moved to threads, as JSON.parse does', async () => {
    threads = new ShiftThreads(2, SETUP);
    const workers = threads;
    // A name whose `},` a guess takes for the end of a row.
    const rows = Array.from({ length: 600 }, (_, i) => ({
      ...ROW,
      id: i + 1,
      user_display_name: i % 5 === 0 ? 'a}, {"b": 1' : 'Ivanova',
    }));
    const body = Buffer.from(JSON.stringify(rows));
    let wrongGuesses = 0;
    const counting: CutParser<WorkedCut> = {
      depth: workers.depth,
      parse(cut) {
        const parsed = Promise.resolve(workers.parse(cut));
        parsed.catch(() => wrongGuesses++);
        return parsed;
      },
    };
    const scanner = new JsonArrayScanner({
      maxBodyBytes: body.length,
      maxRowBytes: 64 * 1024,
      batchBytes: 2 * 1024,
      maxBatchBytes: 8 * 1024,
    });
    const cuts = new ParsedCuts(counting, scanner, (step) => step());
    const ids: number[] = [];
    const take = async (all: boolean): Promise<void> => {
      for (let parsed = await cuts.next(all); parsed !== undefined; parsed = await cuts.next(all))
        ids.push(...Array.from(parsed.ids));
    };
    for (let at = 0; at < body.length; at += 3000) {
      cuts.add(scanner.pushCuts(body.subarray(at, at + 3000)));
      await take(false);
    }
    cuts.add(scanner.endCuts());
    await take(true);
    expect(wrongGuesses).toBeGreaterThan(0);
    expect(ids).toEqual(rows.map((row) => row.id));
  });

  it("carves later answers from the buffers the export's thread gives back", async () => {
    const later = { start_time: '2024-05-05T06:00:00', finish_time: '2024-05-05T14:00:00' };
    // The first cut's rows are rejected or outside the period, the next ones' all exported.
    const cuts = [
      JSON.stringify([{ id: 'x' }, { ...ROW, ...later, id: 1 }, { ...ROW, ...later, id: 11 }]),
      ...[2, 3].map((id) =>
        JSON.stringify([
          { ...ROW, id },
          { ...ROW, id: id + 10 },
        ]),
      ),
    ];
    const worker = new CutWorker(SETUP);
    // With one thread, the next cut is carved from the very buffer given back.
    const here = new ShiftThreads(1, SETUP);
    const first = await here.parse(cutOf(cuts[0] as string));
    here.reuse([first.batch]);
    const second = await here.parse(cutOf(cuts[1] as string));
    expect(second.batch.buffer).toBe(first.batch.buffer);
    expect(sameAs(second.batch)).toEqual(sameAs(worker.work(cutOf(cuts[1] as string))));
    // On threads, it moves back to the thread that made it with that thread's next cut (the third).
    threads = new ShiftThreads(2, SETUP);
    const one = await threads.parse(cutOf(cuts[0] as string));
    const buffer = one.batch.buffer;
    threads.reuse([one.batch]);
    await threads.parse(cutOf(cuts[1] as string));
    expect(buffer.byteLength).toBeGreaterThan(0);
    const three = await threads.parse(cutOf(cuts[2] as string));
    expect(buffer.byteLength).toBe(0);
    expect(sameAs(three.batch)).toEqual(sameAs(worker.work(cutOf(cuts[2] as string))));
  });
});

/** The style ids a workbook has registered once it has written `record`. */
function stylesAfter(record: ShiftRecord): ReturnType<ShiftsWorkbookWriter['shiftStyles']> {
  const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const workbook = new ShiftsWorkbookWriter(sink, {
    createdAt: new Date('2024-04-01T00:00:00Z'),
    creator: 'test',
    matchRateThreshold: 0.8,
    period: { from: '2024-04-01', to: '2024-04-07' },
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

/** Every text of a cut written inline. */
function inline(cut: { readonly strings: readonly string[] }): Int32Array {
  return new Int32Array(cut.strings.length).fill(-1);
}

describe('sheet rows on export threads', () => {
  const text = JSON.stringify(
    [7, 8, 9, 10, 11].map((id) => ({ ...ROW, id })).concat([{ ...ROW, id: 12, duration: -1 }]),
  );
  const records = new CutWorker(SETUP).workKeepingRecords(cutOf(text)).records;
  const styles = stylesAfter(records[0] as ShiftRecord);

  it("remembers the indices a table gave a cut's texts, for the next cuts of the same thread", async () => {
    for (const count of [1, 2]) {
      const pool = new ShiftThreads(count, { ...SETUP, sheetRows: true });
      try {
        // With two threads, cuts 0 and 2 are one thread's.
        const first = (await pool.parse(cutOf(text))).batch;
        if (count === 2) await pool.parse(cutOf(text));
        expect(first.knownTextIds).toEqual({
          table: -1,
          ids: new Int32Array(first.strings.length).fill(UNSEEN),
        });
        const textIds = Int32Array.from(first.strings, (_, label) => (label % 2 === 0 ? label + 100 : -1));
        const place = { firstRow: 2, sheetRowLimit: 1000, styles, keep: Uint8Array.from([1, 1, 1, 1, 1]) };
        await pool.renderSheetRows({ ...place, textIds, table: 9, seq: 0, from: 0, last: true });
        const next = (await pool.parse(cutOf(text))).batch;
        expect(next.strings).toEqual(first.strings);
        expect(next.knownTextIds).toEqual({ table: 9, ids: textIds });
      } finally {
        await pool.close();
      }
    }
  });

  it('renders later rows into the buffer of rows written before, once it is given back', async () => {
    // On the export's own thread the buffer comes back as the same object.
    const here = new ShiftThreads(1, { ...SETUP, sheetRows: true });
    const place = { firstRow: 2, sheetRowLimit: 1000, styles, keep: Uint8Array.from([1, 0, 1, 0, 1]) };
    for (let seq = 0; seq < 3; seq++) await here.parse(cutOf(text));
    const rendered = async (seq: number): Promise<Uint8Array> => {
      const rows = await here.renderSheetRows({
        ...place,
        textIds: new Int32Array(64).fill(-1),
        table: 0,
        seq,
        from: 0,
        last: true,
      });
      if (!('xml' in rows)) throw new Error('the rows came back as values');
      return rows.xml;
    };
    // The first rows size the buffers of the next (the bytes a row takes).
    await rendered(0);
    const second = await rendered(1);
    const expected = Buffer.from(second).toString('utf8');
    here.reuseSheetRows(1, second.buffer as ArrayBuffer);
    const third = await rendered(2);
    expect(third.buffer).toBe(second.buffer);
    expect(Buffer.from(third).toString('utf8')).toBe(expected);
    await here.close();

    // From the export's thread, a buffer given back goes with the next cut to the thread that rendered it.
    threads = new ShiftThreads(2, { ...SETUP, sheetRows: true });
    await threads.parse(cutOf(text));
    const rows = await threads.renderSheetRows({
      ...place,
      textIds: inline((await threads.parse(cutOf(text))).batch),
      table: 0,
      seq: 1,
      from: 0,
      last: true,
    });
    if (!('xml' in rows)) throw new Error('the rows came back as values');
    threads.reuseSheetRows(1, rows.xml.buffer as ArrayBuffer);
    expect(rows.xml.byteLength).toBeGreaterThan(0);
    await threads.parse(cutOf(text));
    await threads.parse(cutOf(text));
    expect(rows.xml.byteLength).toBe(0);
  });

  it('renders the kept records of a cut on the thread that worked it, split where a sheet fills', async () => {
    threads = new ShiftThreads(2, { ...SETUP, sheetRows: true });
    await threads.parse(cutOf(JSON.stringify([{ ...ROW, id: 1 }])));
    const cut = (await threads.parse(cutOf(text))).batch;
    expect(cut.seq).toBe(1);
    // Rows 8 and 10 were repeats; the sheet holds 3 data rows (2 to 4) and row 4 is the next free.
    const place = { firstRow: 4, sheetRowLimit: 3, styles, textIds: inline(cut), table: 0 };
    const keep = Uint8Array.from([1, 0, 1, 0, 1]);
    const rows = xmlOf(await threads.renderSheetRows({ ...place, seq: 1, from: 0, keep, last: false }));
    const [r7, , r9, , r11] = records as ShiftRecord[];
    const first = renderShiftRowsXml([r7 as ShiftRecord], 4, styles, NO_SHARED_TEXTS)?.toString('utf8') ?? '';
    const next =
      renderShiftRowsXml([r9 as ShiftRecord, r11 as ShiftRecord], 2, styles, NO_SHARED_TEXTS)?.toString(
        'utf8',
      ) ?? '';
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
      textIds: inline(cut),
      table: 0,
      seq: cut.seq ?? -1,
      from: 0,
      keep,
      last: true,
    });
    expect(rows).toEqual({
      values: [records[1], records[2]].map((record) => shiftRowValues(record as ShiftRecord)),
    });
  });

  it("writes the shared texts with the indices the export's thread gave them, in row order", async () => {
    threads = new ShiftThreads(2, { ...SETUP, sheetRows: true });
    const shops = ['Tverskaya 1', 'Nevsky 2', 'Tverskaya 1', 'Arbat 3', 'Nevsky 2'];
    const body = JSON.stringify(shops.map((shop_address, k) => ({ ...ROW, id: 20 + k, shop_address })));
    const cut = (await threads.parse(cutOf(body))).batch;
    const kept = new CutWorker(SETUP).workKeepingRecords(cutOf(body)).records;
    const keep = Uint8Array.from([0, 1, 1, 1, 1]);
    const given: string[] = [];
    const table = new SharedTexts({ add: (text) => given.push(text) - 1 });
    const textIds = cutTextIds(table, {
      labels: cut.labels,
      stride: LABELS,
      offset: LABEL.sharedTexts,
      strings: cut.strings,
      from: 0,
      keep,
    });
    // Styles as the workbook has them once it has written such a row (the fixture has no address).
    const withAddress = stylesAfter(kept[1] as ShiftRecord);
    const rows = await threads.renderSheetRows({
      firstRow: 2,
      sheetRowLimit: 100,
      styles: withAddress,
      textIds,
      table: 0,
      seq: cut.seq ?? -1,
      from: 0,
      keep,
      last: true,
    });
    // The same rows written by the workbook itself, its table filled as it goes: the same bytes,
    // the same texts in the same order; the first row's address, not written, is first seen later.
    const here: string[] = [];
    const expected = renderShiftRowsXml(
      kept.slice(1),
      2,
      withAddress,
      new SharedTexts({ add: (text) => here.push(text) - 1 }),
    );
    expect(xmlOf(rows).xml).toBe(expected?.toString('utf8'));
    expect(given).toEqual(here);
    expect(given.filter((text) => shops.includes(text))).toEqual(['Nevsky 2', 'Tverskaya 1', 'Arbat 3']);
  });
});

describe('division spool runs on export threads', () => {
  it('works a run of spool lines into the worked cut of the rows they came from, sheet rows too', async () => {
    const texts = ['Ivanova', 'Ива\u2028нова', 'a "quoted", line\nbreak', '😀 \ud800 lone'];
    const rows = [1, 2, 3, 4, 5, 6].map((id) => ({
      ...ROW,
      id,
      user_display_name: texts[id % texts.length] as string,
      shop_locality: id % 2 === 0 ? null : 'Town',
      start_location_match: id % 3 === 0 ? null : id % 3 === 1,
    }));
    const report: CutWorkSetup = { ...SETUP, parquet: true, sheetRows: true };
    const { worked: expected, records } = new CutWorker(report).workKeepingRecords(
      cutOf(JSON.stringify(rows)),
    );
    expect(records).toHaveLength(rows.length);
    const lines = (): Buffer => {
      const text = records.map((record) => `${spoolLine(record)}\n`).join('');
      const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
      bytes.write(text);
      return bytes;
    };
    const split: CutWorkSetup = {
      ...SETUP,
      csv: undefined,
      spoolLines: true,
      division: { csv: SETUP.csv, sheetRows: true, parquet: true },
    };
    threads = new ShiftThreads(2, split);
    // Numbered among the report's cuts: the first report cut went to one thread, the run to the other.
    await threads.parse(cutOf(JSON.stringify([ROW])));
    const run = await threads.workSpoolLines(lines());
    expect(run.seq).toBe(1);
    expect(sameAs(run)).toEqual(sameAs(expected));
    const styles = stylesAfter(records[0] as ShiftRecord);
    const keep = new Uint8Array(records.length).fill(1);
    const place = { firstRow: 2, sheetRowLimit: 100, styles, textIds: inline(run), table: 0 };
    const sheet = await threads.renderSheetRows({ ...place, seq: 1, from: 0, keep, last: true });
    const xml = renderShiftRowsXml(records, 2, styles, NO_SHARED_TEXTS);
    if (xml === undefined) expect(sheet).toEqual({ values: records.map(shiftRowValues) });
    else expect(xmlOf(sheet).xml).toBe(xml.toString('utf8'));
    // On the export's own thread, through the same code.
    expect(sameAs(await new ShiftThreads(1, split).workSpoolLines(lines()))).toEqual(sameAs(expected));
  });
});
