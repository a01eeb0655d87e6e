// The exceljs that src/render/xlsx/exceljs-adapter.ts was written against: its version, and the
// shape of every untyped internal the adapter reaches. An upgrade, or an internal that moved, fails
// here with one message naming the versions and each internal, before it shows as different bytes
// (row-xml.test.ts) or a workbook that no longer waits for its destination (workbook-stream.test.ts).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { XlsxWorkbook } from '../../../src/render/xlsx/exceljs-adapter.js';
import { CREATED_AT, MemorySink } from './workbook-io.js';

const EXPECTED_VERSION = '4.4.0';

const require = createRequire(import.meta.url);
const installed = (require('exceljs/package.json') as { version: string }).version;
const declared = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    dependencies: Record<string, string>;
  }
).dependencies['exceljs'];

function isFunction(value: unknown): boolean {
  return typeof value === 'function';
}

/** The zip entries' names and DOS date-times, read from the archive's central directory. */
function zipEntries(zip: Buffer): { name: string; date: number; time: number }[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = zip.readUInt32LE(end + 16);
  return Array.from({ length: zip.readUInt16LE(end + 10) }, () => {
    const nameLength = zip.readUInt16LE(at + 28);
    const entry = {
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
      time: zip.readUInt16LE(at + 12),
      date: zip.readUInt16LE(at + 14),
    };
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    return entry;
  });
}

type Raw = Record<string, unknown>;

/** A raw exceljs writer with one sheet, to look at what the adapter reaches. */
function rawWriter(sink: Writable): { writer: Raw; worksheet: Raw } {
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useStyles: true });
  const worksheet = writer.addWorksheet('Probe') as unknown as Raw;
  return { writer: writer as unknown as Raw, worksheet };
}

interface Check {
  readonly internal: string;
  holds(): boolean | Promise<boolean>;
}

const CHECKS: readonly Check[] = [
  {
    internal: `package.json pins exceljs exactly to ${EXPECTED_VERSION} (a range would let npm move it)`,
    holds: () => declared === EXPECTED_VERSION,
  },
  {
    internal: `exceljs ${EXPECTED_VERSION} is the installed one`,
    holds: () => installed === EXPECTED_VERSION,
  },
  {
    internal:
      'WorkbookWriter calls addThemes() from its constructor, with this.zip set, before appending any entry',
    holds: () => {
      const proto = ExcelJS.stream.xlsx.WorkbookWriter.prototype as unknown as Raw;
      return isFunction(proto['addThemes']);
    },
  },
  {
    internal: "WorkbookWriter#zip is archiver's: append(source, data), abort(), on('error')",
    holds: () => {
      const zip = rawWriter(new MemorySink()).writer['zip'] as Raw | undefined;
      return isFunction(zip?.['append']) && isFunction(zip?.['abort']) && isFunction(zip?.['on']);
    },
  },
  {
    internal: 'WorkbookWriter#created holds the `created` option',
    holds: () => {
      const options = { stream: new MemorySink(), created: CREATED_AT };
      return (new ExcelJS.stream.xlsx.WorkbookWriter(options) as unknown as Raw)['created'] === CREATED_AT;
    },
  },
  {
    internal: 'WorkbookWriter#styles.addStyleModel(style, cellType) returns a style id',
    holds: () => {
      const styles = rawWriter(new MemorySink()).writer['styles'] as
        { addStyleModel?: (style: object, type?: number) => unknown } | undefined;
      return typeof styles?.addStyleModel?.({ numFmt: '0.00' }, ExcelJS.ValueType.Number) === 'number';
    },
  },
  {
    internal:
      'WorksheetWriter#stream is a StreamBuf in batch mode with write(), piped into one stream with _writableState.length',
    holds: () => {
      const stream = rawWriter(new MemorySink()).worksheet['stream'] as Raw | undefined;
      const target = (stream?.['pipes'] as Raw[] | undefined)?.[0];
      const state = target?.['_writableState'] as Raw | undefined;
      return (
        stream?.['batch'] === true && isFunction(stream['write']) && typeof state?.['length'] === 'number'
      );
    },
  },
  {
    internal:
      'WorkbookWriter#_worksheets holds the sheets by id, and commit() reads it for workbook.xml, its rels and [Content_Types].xml',
    holds: () => {
      const { writer, worksheet } = rawWriter(new MemorySink());
      const sheets = writer['_worksheets'] as unknown[] | undefined;
      return Array.isArray(sheets) && sheets[1] === worksheet && sheets.filter(Boolean).length === 1;
    },
  },
  {
    internal:
      'WorkbookWriter#sharedStrings.add(text) returns the same index for the same text, and commit() writes xl/sharedStrings.xml, its relationship and content type when it holds any (with useSharedStrings off)',
    holds: async () => {
      const { writer } = rawWriter(new MemorySink());
      const table = writer['sharedStrings'] as { add?: (text: string) => unknown } | undefined;
      const first = table?.add?.('Tverskaya 1');
      if (first !== 0 || table?.add?.('Nevsky 2') !== 1 || table.add('Tverskaya 1') !== 0) return false;
      const zip = writer['zip'] as { append: (source: unknown, data?: { name?: string }) => unknown };
      const append = zip.append.bind(zip);
      const parts = new Map<string, unknown>();
      zip.append = (source, data) => {
        parts.set(data?.name ?? '', source);
        return append(source, data);
      };
      await (writer as unknown as { commit(): Promise<void> }).commit();
      const text = (name: string): string => String(parts.get(name) ?? '');
      return (
        text('/xl/sharedStrings.xml').includes('<si><t>Nevsky 2</t></si>') &&
        text('/xl/_rels/workbook.xml.rels').includes('Target="sharedStrings.xml"') &&
        text('[Content_Types].xml').includes('PartName="/xl/sharedStrings.xml"')
      );
    },
  },
  {
    internal: "WorkbookWriter#language becomes docProps/core.xml's <dc:language>",
    holds: async () => {
      const { writer } = rawWriter(new MemorySink());
      writer['language'] = 'ru';
      const zip = writer['zip'] as { append: (source: unknown, data?: { name?: string }) => unknown };
      const append = zip.append.bind(zip);
      let core: unknown;
      zip.append = (source, data) => {
        if (data?.name === 'docProps/core.xml') core = source;
        return append(source, data);
      };
      await (writer as unknown as { commit(): Promise<void> }).commit();
      return typeof core === 'string' && core.includes('<dc:language>ru</dc:language>');
    },
  },
  {
    internal: 'WorkbookWriter appends [Content_Types].xml as a string ending in </Types>',
    holds: async () => {
      const sink = new MemorySink();
      const { writer } = rawWriter(sink);
      const zip = writer['zip'] as { append: (source: unknown, data?: { name?: string }) => unknown };
      const append = zip.append.bind(zip);
      let contentTypes: unknown;
      zip.append = (source, data) => {
        if (data?.name === '[Content_Types].xml') contentTypes = source;
        return append(source, data);
      };
      await (writer as unknown as { commit(): Promise<void> }).commit();
      return typeof contentTypes === 'string' && contentTypes.endsWith('</Types>');
    },
  },
  {
    internal:
      'WorksheetWriter#_sheetRelsWriter.addRelationship({Target, Type}) returns an rId, and commit() calls _writeLegacyData() after the page setup, before </worksheet>',
    holds: () => {
      const { worksheet } = rawWriter(new MemorySink());
      const rels = worksheet['_sheetRelsWriter'] as Raw | undefined;
      const commit = String((worksheet as { commit?: unknown }).commit);
      const id = (rels?.['addRelationship'] as ((r: object) => unknown) | undefined)?.call(rels, {
        Target: '../drawings/drawing1.xml',
        Type: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/drawing',
      });
      return (
        id === 'rId1' &&
        isFunction(worksheet['_writeLegacyData']) &&
        commit.indexOf('_writeHeaderFooter') < commit.indexOf('_writeLegacyData') &&
        commit.indexOf('_writeLegacyData') < commit.indexOf('_writeCloseWorksheet')
      );
    },
  },
  {
    internal:
      'WorkbookWriter#zip._module.engine is zip-stream 4 (compress-commons 4.1): _smartStream(entry, callback) returning the stream it pipes into itself, _afterAppend(entry), and entries with getName, getMethod, setCrc, setSize, setCompressedSize',
    holds: () => {
      const zip = rawWriter(new MemorySink()).writer['zip'] as Raw | undefined;
      const engine = (zip?.['_module'] as Raw | undefined)?.['engine'] as Raw | undefined;
      const smartStream = String(engine?.['_smartStream']);
      return (
        isFunction(engine?.['_afterAppend']) &&
        ['getMethod()', 'setCrc(', 'setSize(', 'setCompressedSize(', '_afterAppend(ae)', 'pipe(this'].every(
          (part) => smartStream.includes(part),
        )
      );
    },
  },
  {
    internal:
      'ValueType numbers as row-xml.ts copies them (Null 0, Number 2, String 3, Date 4, RichText 8, Boolean 9)',
    holds: () => {
      const { Null, Number, String, Date, RichText, Boolean } = ExcelJS.ValueType;
      return [Null, Number, String, Date, RichText, Boolean].join() === '0,2,3,4,8,9';
    },
  },
  {
    internal:
      "WorkbookWriter#_openStream(path) makes a part's StreamBuf, which with batch off passes a write to its pipe as it is",
    holds: () => {
      const { writer } = rawWriter(new MemorySink());
      const openStream = writer['_openStream'];
      if (!isFunction(openStream)) return false;
      const stream = (openStream as (path: string) => Raw).call(writer, '/xl/worksheets/sheet9.xml');
      if (stream['batch'] !== true || !Array.isArray(stream['pipes'])) return false;
      stream['batch'] = false;
      const seen: unknown[] = [];
      stream['pipes'] = [{ write: (chunk: unknown) => seen.push(chunk) }];
      const bytes = Buffer.from('<row r="2"/>');
      (stream['write'] as (chunk: Buffer) => unknown).call(stream, bytes);
      return seen.length === 1 && seen[0] === bytes;
    },
  },
  {
    internal:
      'through the adapter: every zip entry dated createdAt, a sheet backlog, row XML passed on uncopied',
    holds: async () => {
      const sink = new MemorySink();
      const workbook = new XlsxWorkbook(sink, { createdAt: CREATED_AT, creator: 'pin test' });
      const sheet = workbook.addSheet({
        name: 'S',
        columnWidths: [8],
        pageSetup: { paperSize: 9, orientation: 'landscape' },
      });
      const paced = typeof sheet.backlog().bytes() === 'number';
      const copied = sheet.writeRowXml(Buffer.from('<row r="1"><c r="A1"><v>1</v></c></row>'));
      sheet.close();
      await workbook.finish({ title: 'pin' });
      // 2024-05-08 04:00:00 UTC as a DOS date and time.
      const dated = zipEntries(sink.bytes).every(
        (e) => e.date === (((2024 - 1980) << 9) | (5 << 5) | 8) && e.time === 4 << 11,
      );
      return paced && !copied && dated && zipEntries(sink.bytes).length > 5;
    },
  },
];

describe('exceljs, as the adapter knows it', () => {
  it(`is ${EXPECTED_VERSION}, with every internal the adapter reaches in the expected shape`, async () => {
    const broken: string[] = [];
    for (const check of CHECKS) {
      let holds = false;
      try {
        holds = await check.holds();
      } catch {
        holds = false;
      }
      if (!holds) broken.push(check.internal);
    }
    const banner = [
      `exceljs ${installed} is installed (package.json: "${declared}"); src/render/xlsx/exceljs-adapter.ts`,
      `was written against exceljs ${EXPECTED_VERSION} and relies on:`,
      ...CHECKS.map((check) => `  - ${check.internal}`),
      'Re-check the adapter against the new exceljs (row-xml.test.ts compares the bytes), then update',
      'EXPECTED_VERSION here and the pin in package.json. What no longer holds',
    ].join('\n');
    expect(broken, banner).toEqual([]);
  });

  it('sees a broken internal (the checks are not blind)', () => {
    const zip = rawWriter(new MemorySink()).writer['zip'] as Raw;
    expect(isFunction(zip['append'])).toBe(true);
    expect(isFunction(zip['no-such-member'])).toBe(false);
    expect(zipEntries(Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array<number>(18).fill(0)]))).toEqual([]);
  });
});
