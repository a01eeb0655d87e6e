// shifts.csv and shifts.xlsx tell the same story about text a spreadsheet cannot hold: the same
// raw rows through the pipeline, then into both files, read back by independent readers
// (csv-parse, exceljs's reader) — every row in both, every text cell the same, U+FFFD where a
// character was replaced, and the row flagged.

import { PassThrough } from 'node:stream';
import { text as readAll } from 'node:stream/consumers';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { SHIFT_COLUMNS } from '../../src/domain/shift-columns.js';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import { ShiftPipeline } from '../../src/pipeline/shift-pipeline.js';
import { CsvTableWriter } from '../../src/render/csv/csv-table-writer.js';
import { startsLikeFormula } from '../../src/render/formula-guard.js';
import { HOSTILE_COMMENTS } from 'wfm-sandbox';
import { shiftRow } from '../pipeline/support/shift-rows.js';
import { readWorkbook, renderWorkbook, sheet } from '../render/xlsx/workbook-io.js';

const TEXT_COLUMNS = SHIFT_COLUMNS.flatMap((column, i) => (column.kind === 'text' ? [{ column, i }] : []));

async function shiftsCsv(records: readonly ShiftRecord[]): Promise<string[][]> {
  const sink = new PassThrough();
  const read = readAll(sink);
  const writer = new CsvTableWriter(SHIFT_COLUMNS, sink, { delimiter: ',', bom: true });
  for (const record of records) await writer.write(record);
  await writer.end();
  return parse(await read, { bom: true }) as string[][];
}

describe('text a spreadsheet cannot hold, in shifts.csv and shifts.xlsx', () => {
  it('is the same replaced text in both files, in every row, and the row is flagged', async () => {
    const raw = HOSTILE_COMMENTS.map((comment, i) =>
      shiftRow({ id: i + 1, comment, user_display_name: `Anna${comment.slice(0, 3)}` }),
    );
    const pipeline = new ShiftPipeline({
      period: { from: '2024-05-01', to: '2024-05-01' },
      divisions: new Map(),
    });
    const records = pipeline.processBatch(raw).shifts;
    expect(records).toHaveLength(raw.length);

    const csv = await shiftsCsv(records);
    const workbook = sheet(await readWorkbook(await renderWorkbook({ shifts: records })), 'Shifts');
    expect(csv).toHaveLength(records.length + 1);
    expect(workbook.rowCount).toBe(records.length + 1);

    let replaced = 0;
    records.forEach((record, r) => {
      const csvRow = csv[r + 1] ?? [];
      const flagged = record.qualityFlags.split(';').includes('text_replaced');
      if (flagged) replaced++;
      expect(csvRow.some((cell) => cell.includes('\uFFFD'))).toBe(flagged);
      for (const { column, i } of TEXT_COLUMNS) {
        const inCsv = csvRow[i] ?? '';
        // The CSV guards formulas with a leading ' (the workbook's text cells are inert).
        const text = inCsv.startsWith("'") && startsLikeFormula(inCsv.slice(1)) ? inCsv.slice(1) : inCsv;
        const shown = workbook.getRow(r + 2).getCell(i + 1).text;
        // XML reads CR LF (and a lone CR) as LF.
        expect(shown, `${column.name} of row ${r + 1}`).toBe(text.replace(/\r\n?/g, '\n'));
        // eslint-disable-next-line no-control-regex
        expect(inCsv).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]/);
      }
    });
    expect(replaced).toBeGreaterThan(8);
  });
});
