// What a purpose-built writer of the Shifts sheet could reach: each row as SpreadsheetML text
// (inline strings, serial dates, one style index per column) deflated at zlib level 1, as a zip
// entry's body would be. Not a workbook (no zip directory, styles or other sheets): the bench
// measures it beside exceljs to size the gap before anyone decides to switch (issue 6).

import { createDeflateRaw } from 'node:zlib';
import { Writable } from 'node:stream';
import { SHIFT_COLUMNS } from '../src/domain/shift-columns.js';
import type { ShiftRecord } from '../src/domain/shift-record.js';
import { xlsxValue, type XlsxValue } from '../src/render/xlsx/xlsx-cells.js';

const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
// Control characters are not allowed in XML 1.0 text: the prototype drops them like a real writer would.
// eslint-disable-next-line no-control-regex
const XML_SPECIAL = /[&<>"\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

function escapeXml(text: string): string {
  return XML_SPECIAL.test(text) ? text.replace(XML_SPECIAL, (c) => ESCAPES[c] ?? '') : text;
}

function columnLetters(index: number): string {
  let n = index + 1;
  let out = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    out = String.fromCharCode(65 + r) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

const LETTERS = SHIFT_COLUMNS.map((_, i) => columnLetters(i));

function cell(ref: string, style: number, value: XlsxValue): string {
  if (value === null) return '';
  if (typeof value === 'number') return `<c r="${ref}" s="${style}"><v>${value}</v></c>`;
  if (typeof value === 'boolean') return `<c r="${ref}" s="${style}" t="b"><v>${value ? 1 : 0}</v></c>`;
  if (value instanceof Date)
    return `<c r="${ref}" s="${style}"><v>${(value.getTime() - EXCEL_EPOCH_MS) / 86_400_000}</v></c>`;
  const text = typeof value === 'string' ? value : value.richText[0].text;
  return `<c r="${ref}" s="${style}" t="inlineStr"><is><t xml:space="preserve">${escapeXml(text)}</t></is></c>`;
}

function rowXml(record: ShiftRecord, rowNumber: number): string {
  let xml = `<row r="${rowNumber}">`;
  for (let i = 0; i < SHIFT_COLUMNS.length; i++) {
    const column = SHIFT_COLUMNS[i];
    if (column === undefined) continue;
    xml += cell(`${LETTERS[i] ?? 'A'}${rowNumber}`, i + 1, xlsxValue(column.kind, column.value(record)));
  }
  return `${xml}</row>`;
}

/** Renders `rows` rows (records cycled) and resolves with the deflated bytes. */
export async function renderSheetPrototype(records: readonly ShiftRecord[], rows: number): Promise<number> {
  let bytes = 0;
  const deflate = createDeflateRaw({ level: 1 });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      callback();
    },
  });
  deflate.pipe(sink);
  let pending = '';
  for (let i = 0; i < rows; i++) {
    pending += rowXml(records[i % records.length] as ShiftRecord, i + 2);
    if (pending.length > 64 * 1024) {
      if (!deflate.write(pending)) await new Promise((resolve) => deflate.once('drain', resolve));
      pending = '';
    }
  }
  deflate.end(pending);
  await new Promise((resolve) => sink.once('finish', resolve));
  return bytes;
}
