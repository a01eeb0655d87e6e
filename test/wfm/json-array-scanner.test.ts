import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RawRows } from '../../src/domain/raw-rows.js';
import { JsonArrayScanError } from '../../src/wfm/json-array-scan-error.js';
import { JsonArrayScanner, type JsonArrayScannerOptions } from '../../src/wfm/json-array-scanner.js';
import { MAX_CUT_TEXT_BYTES, parseCut, type ScannedCut } from '../../src/wfm/scanned-cut.js';

const LARGE = { maxBodyBytes: Number.MAX_SAFE_INTEGER, maxRowBytes: Number.MAX_SAFE_INTEGER };

/** Feeds `bytes` split at `cuts` (sorted byte offsets); returns every row, or the error thrown. */
function scanAll(
  bytes: Uint8Array,
  cuts: readonly number[] = [],
  options: JsonArrayScannerOptions = LARGE,
): { rows: unknown[] } | { error: unknown } {
  const scanner = new JsonArrayScanner(options);
  const rows: unknown[] = [];
  try {
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      if (cut < from) continue;
      for (const batch of scanner.pushBatches(bytes.subarray(from, cut))) rows.push(...batch);
      from = cut;
    }
    for (const row of scanner.end()) rows.push(row);
    return { rows };
  } catch (error) {
    return { error };
  }
}

/**
 * As scanAll, through the cut API with a parser that lags `lag` chunks behind the scanner (as
 * parse threads do): cuts wait in order, guesses are confirmed or rewound only when parsed.
 */
function scanLagging(
  bytes: Uint8Array,
  cuts: readonly number[],
  options: JsonArrayScannerOptions,
  lag: number,
): { rows: unknown[] } | { error: unknown } {
  const scanner = new JsonArrayScanner(options);
  const rows: unknown[] = [];
  let waiting: ScannedCut[][] = [];
  const parseWaiting = (keep: number): void => {
    while (waiting.length > keep) {
      const queue = waiting.shift() as ScannedCut[];
      while (queue.length > 0) {
        const cut = queue.shift() as ScannedCut;
        let parsed: RawRows;
        try {
          parsed = parseCut(cut);
        } catch (error) {
          if (!cut.guessed) throw error;
          // Everything cut after a wrong guess is replaced by the rescan.
          waiting = [scanner.rewind(cut)];
          queue.length = 0;
          continue;
        }
        scanner.confirm(cut);
        rows.push(...parsed);
      }
    }
  };
  try {
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      if (cut < from) continue;
      waiting.push(scanner.pushCuts(bytes.subarray(from, cut)));
      parseWaiting(lag);
      from = cut;
    }
    waiting.push(scanner.endCuts());
    parseWaiting(0);
    return { rows };
  } catch (error) {
    return { error };
  }
}

function reference(bytes: Uint8Array): { rows: unknown[] } | { error: unknown } {
  try {
    const value: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
    if (!Array.isArray(value)) return { error: new Error('not an array') };
    return { rows: value };
  } catch (error) {
    return { error };
  }
}

function kindOf(result: { rows: unknown[] } | { error: unknown }): string {
  if ('rows' in result) return 'ok';
  return result.error instanceof JsonArrayScanError
    ? result.error.kind
    : `unexpected ${String(result.error)}`;
}

const bytesOf = (text: string): Buffer => Buffer.from(text, 'utf8');

// Strings built from the characters that break naive scanners.
const nastyChar = fc.constantFrom(
  '"',
  '\\',
  ',',
  '[',
  ']',
  '{',
  '}',
  ':',
  ' ',
  '\n',
  '\t',
  '\u0000',
  '\u001f',
  'é',
  'ж',
  '€',
  '😀',
  '\u2028',
  'a',
  '/',
);
const nastyString = fc.oneof(
  fc.string({ unit: nastyChar, maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const leaf = fc.oneof(
  nastyString,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(nastyString, tie('node'), { maxKeys: 3 }),
  ),
})).node;
const row = fc.dictionary(nastyString, value, { maxKeys: 6 });
/** A report-like body: an array of objects (and, rarely, other values), in one of several spellings. */
const body = fc
  .record({
    rows: fc.array(fc.oneof({ weight: 6, arbitrary: row }, { weight: 1, arbitrary: value }), {
      maxLength: 25,
    }),
    indent: fc.constantFrom(0, 1, 2),
    escapeNonAscii: fc.boolean(),
    lead: fc.constantFrom('', ' ', '\n', '\r\n\t '),
    trail: fc.constantFrom('', ' ', '\n', ' \r\n'),
  })
  .map(({ rows, indent, escapeNonAscii, lead, trail }) => {
    let text = JSON.stringify(rows, null, indent);
    if (escapeNonAscii)
      text = text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    return bytesOf(lead + text + trail);
  });
const cutsFor = (length: number) =>
  fc
    .uniqueArray(fc.integer({ min: 0, max: length }), { maxLength: 12 })
    .map((c) => [...c].sort((a, b) => a - b));
const batchBytes = fc.oneof(fc.integer({ min: 1, max: 64 }), fc.constant(512 * 1024));
const maxBatchBytes = fc.option(fc.integer({ min: 1, max: 96 }), { nil: undefined });

describe('JsonArrayScanner', () => {
  it("gives JSON.parse's rows and errors when guesses are confirmed chunks later (cuts parsed elsewhere)", () => {
    fc.assert(
      fc.property(
        body.chain((b) =>
          fc.tuple(
            fc.constant(b),
            cutsFor(b.length),
            batchBytes,
            maxBatchBytes,
            fc.integer({ min: 0, max: 4 }),
          ),
        ),
        ([bytes, cuts, batch, maxBatch, lag]) => {
          const options = {
            ...LARGE,
            batchBytes: batch,
            ...(maxBatch === undefined ? {} : { maxBatchBytes: maxBatch }),
          };
          const result = scanLagging(bytes, cuts, options, lag);
          const expected = reference(bytes);
          if ('rows' in expected) expect(result).toEqual(expected);
          else expect(kindOf(result)).not.toBe('ok');
          // Damaged bodies too: accepted exactly when JSON.parse accepts them (the kind of error
          // may differ, since the error that shows first depends on when the parses answer).
          const damaged = Buffer.from(bytes);
          if (damaged.length > 2) damaged[Math.floor(damaged.length / 2)] = 0x7d;
          const lagging = scanLagging(damaged, cuts, options, lag);
          const whole = reference(damaged);
          if ('rows' in whole) expect(lagging).toEqual(whole);
          else expect(kindOf(lagging)).toMatch(/^(malformed|trailing-data|truncated|not-an-array)$/);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('rewinds to a wrong guess and scans the bytes kept since, holding back the errors met after it', () => {
    // The first chunk ends inside a string after `},`: the guess cuts there, and is wrong.
    const text = '[{"a":"x},"},{"b":"]"}] ';
    const scanner = new JsonArrayScanner({ ...LARGE, batchBytes: 1 });
    const [guess, ...more] = scanner.pushCuts(bytesOf(text.slice(0, 10)));
    expect(guess?.guessed).toBe(true);
    expect(more).toEqual([]);
    // What follows the wrong cut is cut from a wrong start (and may end in errors): nothing of it
    // is thrown before the guess is known to be wrong.
    expect(() => [...scanner.pushCuts(bytesOf(text.slice(10))), ...scanner.endCuts()]).not.toThrow();
    expect(() => parseCut(guess as ScannedCut)).toThrow(JsonArrayScanError);
    const rescanned = scanner.rewind(guess as ScannedCut);
    expect(rescanned.every((cut) => !cut.guessed)).toBe(true);
    expect(rescanned.flatMap((cut) => [...parseCut(cut)])).toEqual(JSON.parse(text));
    expect(scanner.unconfirmed).toBe(0);
  });

  it('returns the same rows as JSON.parse for any body split at any byte boundaries', () => {
    fc.assert(
      fc.property(
        body.chain((b) => fc.tuple(fc.constant(b), cutsFor(b.length), batchBytes, maxBatchBytes)),
        ([bytes, cuts, batch, maxBatch]) => {
          const options = {
            ...LARGE,
            batchBytes: batch,
            ...(maxBatch === undefined ? {} : { maxBatchBytes: maxBatch }),
          };
          const result = scanAll(bytes, cuts, options);
          expect(result).toEqual(reference(bytes));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('cuts a chunk larger than maxBatchBytes into batches of whole rows of about that size', () => {
    // Flat rows, as the report's are (a `}` inside a string sends the scanner to its byte scan).
    const rows = Array.from({ length: 500 }, (_, id) => ({ id, comment: `row ${id}, "quoted" [1, 2]` }));
    const text = JSON.stringify(rows);
    const scanner = new JsonArrayScanner({ ...LARGE, batchBytes: 1024, maxBatchBytes: 4096 });
    const taking = scanner.pushBatches(bytesOf(text))[Symbol.iterator]();
    const first = taking.next();
    // Parsed as taken: one batch is held at a time, not the whole chunk's.
    expect(first.done).toBe(false);
    expect(scanner.rows).toBe(first.value?.length);
    const batches = [first.value as RawRows, ...{ [Symbol.iterator]: () => taking }, scanner.end()];
    expect(batches.flatMap((batch) => [...batch])).toEqual(rows);
    const longest = Math.max(...rows.map((row) => JSON.stringify(row).length));
    expect(batches.length).toBeGreaterThan(text.length / (4096 + longest));
    // The rows are JSON.stringify's: a batch's text is its rows stringified again.
    for (const batch of batches) expect(JSON.stringify([...batch]).length).toBeLessThanOrEqual(4096 + 2);
  });

  it("keeps each cut of a large chunk, at the defaults, a string under V8's large-object size", () => {
    // Mostly two-byte text (Cyrillic): its string takes two bytes a character, and past 128 KiB
    // V8 keeps it as a large object in pages mapped for it alone (scanned-cut.ts).
    const rows = Array.from({ length: 3000 }, (_, id) => ({
      id,
      shop: `Магазин №${id}`,
      note: 'смена '.repeat(20),
    }));
    const text = JSON.stringify(rows);
    const scanner = new JsonArrayScanner(LARGE);
    const batches = [...scanner.pushBatches(bytesOf(text)), scanner.end()];
    expect(batches.flatMap((batch) => [...batch])).toEqual(rows);
    expect(batches.length).toBeGreaterThan(Buffer.byteLength(text) / MAX_CUT_TEXT_BYTES);
    for (const batch of batches) {
      const cutText = JSON.stringify([...batch]);
      expect(Buffer.byteLength(cutText)).toBeLessThanOrEqual(MAX_CUT_TEXT_BYTES + 2);
      expect(cutText.length * 2).toBeLessThan(128 * 1024);
    }
  });

  it('keeps batches bounded by maxBatchBytes after a wrong guess too (the byte scan)', () => {
    // A `}` inside a string ends the chunk: the guess fails and the scanner scans bytes for a while.
    const rows = Array.from({ length: 400 }, (_, id) => ({ id, comment: `row ${id} {a brace}` }));
    const text = JSON.stringify(rows);
    const scanner = new JsonArrayScanner({ ...LARGE, batchBytes: 512, maxBatchBytes: 2048 });
    const batches: RawRows[] = [];
    for (let at = 0; at < text.length; at += 9000)
      batches.push(...scanner.pushBatches(bytesOf(text.slice(at, at + 9000))));
    batches.push(scanner.end());
    expect(batches.flatMap((batch) => [...batch])).toEqual(rows);
    const longest = Math.max(...rows.map((row) => JSON.stringify(row).length));
    expect(batches.filter((batch) => batch.length > 0).length).toBeGreaterThan(
      text.length / (2048 + longest),
    );
    for (const batch of batches.filter((b) => b.length > 0))
      expect(JSON.stringify([...batch]).length).toBeLessThanOrEqual(2048 + longest + 2);
  });

  it('splits inside every multi-byte character and escape of a body one byte at a time', () => {
    const rows = [
      { s: 'ж€😀"\\,]}', t: '\\"', u: 'end\\' },
      ['😀', { '😀': '\u2028' }],
      'a,b',
      12.5e-3,
      null,
    ];
    const bytes = bytesOf(JSON.stringify(rows));
    const everyByte = Array.from({ length: bytes.length }, (_, i) => i);
    expect(scanAll(bytes, everyByte, { ...LARGE, batchBytes: 1 })).toEqual({ rows });
    expect(scanAll(bytes, everyByte)).toEqual({ rows });
  });

  it('rejects every truncation of a valid body, wherever it is cut', () => {
    fc.assert(
      fc.property(
        body.chain((b) =>
          fc.tuple(fc.constant(b), fc.integer({ min: 0, max: b.lastIndexOf(0x5d) }), cutsFor(b.length)),
        ),
        ([bytes, end, cuts]) => {
          const truncated = bytes.subarray(0, end); // never includes the closing bracket
          const result = scanAll(truncated, cuts);
          expect('error' in result).toBe(true);
          expect('error' in reference(truncated)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('accepts a damaged body exactly when JSON.parse does, with the same rows', () => {
    const damage = fc.record({
      at: fc.nat(),
      kind: fc.constantFrom('insert', 'delete', 'replace'),
      byte: fc.constantFrom(0x22, 0x5c, 0x2c, 0x5b, 0x5d, 0x7b, 0x7d, 0x3a, 0x20, 0x31, 0x6e, 0xe2, 0x80),
    });
    fc.assert(
      fc.property(
        body.chain((b) =>
          fc.tuple(
            fc.constant(b),
            fc.array(damage, { minLength: 1, maxLength: 3 }),
            cutsFor(b.length),
            batchBytes,
          ),
        ),
        ([original, damages, cuts, batch]) => {
          let bytes = Buffer.from(original);
          for (const d of damages) {
            const at = d.at % (bytes.length + 1);
            const insert = Buffer.from([d.byte]);
            if (d.kind === 'insert')
              bytes = Buffer.concat([bytes.subarray(0, at), insert, bytes.subarray(at)]);
            else if (at < bytes.length && d.kind === 'delete')
              bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
            else if (at < bytes.length) bytes[at] = d.byte;
          }
          const result = scanAll(bytes, cuts, { ...LARGE, batchBytes: batch });
          const expected = reference(bytes);
          expect('rows' in result).toBe('rows' in expected);
          if ('rows' in result && 'rows' in expected) expect(result.rows).toEqual(expected.rows);
        },
      ),
      { numRuns: 600 },
    );
  });

  it.each([
    ['[]', []],
    [' \n[ ]\r\n', []],
    ['[{}]', [{}]],
    ['[[],[[]],{"a":[]}]', [[], [[]], { a: [] }]],
    ['["a,b","]","\\\\",1]', ['a,b', ']', '\\', 1]],
  ])('reads %j', (text, rows) => {
    expect(scanAll(bytesOf(text))).toEqual({ rows });
  });

  it.each([
    ['', 'truncated'],
    ['   ', 'truncated'],
    ['{"a":1}', 'not-an-array'],
    ['\uFEFF[]', 'not-an-array'],
    ['null', 'not-an-array'],
    ['[{"a":1}', 'truncated'],
    ['[{"a":1},', 'truncated'],
    ['[{"a":"]"}', 'truncated'],
    ['[1]x', 'trailing-data'],
    ['[1] [2]', 'trailing-data'],
    ['[1],', 'trailing-data'],
    ['[1,]', 'malformed'],
    ['[,1]', 'malformed'],
    ['[1,,2]', 'malformed'],
    ['[1 2]', 'malformed'],
    ['[{"a":1]]', 'malformed'],
    ['[{"a" 1}]', 'malformed'],
    ['[tru]', 'malformed'],
    ['[{"a":1} {"b":2}]', 'malformed'],
    ['[{"a":1}1]', 'malformed'],
    ['[{}x]', 'malformed'],
    ['[{},]', 'malformed'],
    ['[{}}]', 'malformed'],
    ['[{}] {}', 'trailing-data'],
  ])('rejects %j as %s, however it is chunked and batched', (text, kind) => {
    const bytes = bytesOf(text);
    const everyByte = Array.from({ length: bytes.length }, (_, i) => i);
    expect(kindOf(scanAll(bytes))).toBe(kind);
    expect(kindOf(scanAll(bytes, [], { ...LARGE, batchBytes: 1 }))).toBe(kind);
    expect(kindOf(scanAll(bytes, everyByte, { ...LARGE, batchBytes: 1 }))).toBe(kind);
  });

  it('decodes malformed UTF-8 and BOMs inside strings as JSON.parse of the whole body does', () => {
    // Bytes that are not valid UTF-8 (lone continuation bytes, truncated and overlong sequences,
    // surrogates) and U+FEFF, inside strings of rows split anywhere.
    const oddBytes = fc
      .uint8Array({ maxLength: 12 })
      .map((b) => b.map((x) => (x < 0x20 || x === 0x22 || x === 0x5c ? 0x80 | x : x)));
    const special = fc.constantFrom(
      [0xef, 0xbb, 0xbf],
      [0xed, 0xa0, 0x80],
      [0xc0, 0xaf],
      [0xf0, 0x9f, 0x98],
      [0xe2, 0x80],
    );
    const piece = fc.oneof(
      oddBytes,
      special.map((b) => Uint8Array.from(b)),
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(piece, { maxLength: 4 }), { minLength: 1, maxLength: 5 }).chain((strings) => {
          const parts: Buffer[] = [bytesOf('[')];
          strings.forEach((pieces, i) => {
            if (i > 0) parts.push(bytesOf(','));
            parts.push(bytesOf('{"s":"'), ...pieces.map((p) => Buffer.from(p)), bytesOf('"}'));
          });
          parts.push(bytesOf(']'));
          const bytes = Buffer.concat(parts);
          return fc.tuple(fc.constant(bytes), cutsFor(bytes.length), batchBytes);
        }),
        ([bytes, cuts, batch]) => {
          expect(scanAll(bytes, cuts, { ...LARGE, batchBytes: batch })).toEqual(reference(bytes));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('rejects a body whose separator between two rows is not a comma', () => {
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 2, maxLength: 6 }),
        fc.nat(),
        fc.constantFrom(' ', '1', 'x', '}', '{', '"', ':', ']'),
        batchBytes,
        fc.array(fc.nat(), { maxLength: 6 }),
        (rows, pick, separator, batch, cutSeeds) => {
          const texts = rows.map((r) => JSON.stringify(r));
          const at = 1 + (pick % (texts.length - 1));
          const head = `[${texts.slice(0, at).join(',')}`;
          const text = `${head}${separator}${texts.slice(at).join(',')}]`;
          const bytes = bytesOf(text);
          // A chunk ending right after the separator makes the guessed cut land before it.
          const afterSeparator = bytesOf(head + separator).length;
          const cuts = [...new Set([afterSeparator, ...cutSeeds.map((c) => c % bytes.length)])].sort(
            (a, b) => a - b,
          );
          expect('error' in scanAll(bytes, cuts, { ...LARGE, batchBytes: batch })).toBe(true);
          expect('error' in reference(bytesOf(text))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reports garbage that arrives in a later chunk than the closing bracket', () => {
    const scanner = new JsonArrayScanner({ ...LARGE, batchBytes: 1 });
    expect(scanner.push(bytesOf('[1,2]'))).toEqual([1, 2]);
    expect(scanner.complete).toBe(true);
    expect(scanner.push(bytesOf('  \n'))).toEqual([]);
    expect(() => scanner.push(bytesOf(' ,'))).toThrow(expect.objectContaining({ kind: 'trailing-data' }));
  });

  it('accepts a row of exactly maxRowBytes and rejects one byte more', () => {
    const row = JSON.stringify({ s: 'x'.repeat(92) }); // 100 bytes
    expect(row.length).toBe(100);
    const limits = { maxBodyBytes: 10_000, maxRowBytes: 100 };
    expect(scanAll(bytesOf(`[${row},${row}]`), [], limits)).toEqual({
      rows: [JSON.parse(row), JSON.parse(row)],
    });
    const longer = JSON.stringify({ s: 'x'.repeat(93) });
    expect(kindOf(scanAll(bytesOf(`[${row},${longer}]`), [], limits))).toBe('row-too-large');
    expect(kindOf(scanAll(bytesOf(`[${longer},${row}]`), [], limits))).toBe('row-too-large');
  });

  it('rejects an endless row as soon as it passes maxRowBytes, without waiting for its end', () => {
    const scanner = new JsonArrayScanner({ maxBodyBytes: Number.MAX_SAFE_INTEGER, maxRowBytes: 1000 });
    scanner.push(bytesOf('[{"comment":"'));
    const chunk = bytesOf('y'.repeat(100));
    let pushed = 0;
    expect(() => {
      for (;;) {
        scanner.push(chunk);
        pushed += chunk.length;
        if (pushed > 10_000) break;
      }
    }).toThrow(expect.objectContaining({ kind: 'row-too-large', offset: 1 }));
    expect(pushed).toBeLessThanOrEqual(1000);
  });

  it('rejects a body longer than maxBodyBytes, even one of many small rows', () => {
    const scanner = new JsonArrayScanner({ maxBodyBytes: 5000, maxRowBytes: 100 });
    scanner.push(bytesOf('['));
    let rows = 0;
    expect(() => {
      for (let i = 0; i < 10_000; i++) rows += scanner.push(bytesOf('{"id":1},')).length;
    }).toThrow(expect.objectContaining({ kind: 'body-too-large' }));
    expect(scanner.bytes).toBeLessThanOrEqual(5000);
    expect(rows).toBe(0);
  });

  it('parses in batches of about batchBytes, so rows flow before the body ends', () => {
    const scanner = new JsonArrayScanner({ ...LARGE, batchBytes: 100 });
    const row = JSON.stringify({ id: 1, s: 'x'.repeat(30) }); // 40 bytes
    expect(scanner.push(bytesOf(`[${row},${row},`))).toEqual([]);
    expect(scanner.push(bytesOf(`${row},${row.slice(0, 20)}`))).toHaveLength(3);
    expect(scanner.push(bytesOf(`${row.slice(20)},${row}`))).toEqual([]);
    expect(scanner.push(bytesOf(']'))).toEqual([]);
    expect(scanner.end()).toHaveLength(2);
    expect(scanner.rows).toBe(5);
  });

  it('parses rows that are not objects by scanning, in batches too', () => {
    const scanner = new JsonArrayScanner({ ...LARGE, batchBytes: 10 });
    expect(scanner.push(bytesOf('["a,]",[1,2],'))).toEqual(['a,]', [1, 2]]);
    expect(scanner.push(bytesOf('"b\\\\"'))).toEqual([]);
    expect(scanner.push(bytesOf(', 3 ] '))).toEqual(['b\\', 3]);
    expect(scanner.complete).toBe(true);
  });

  it('falls back to scanning when the last "}" of a chunk is inside a string or a nested object', () => {
    const rows = [
      { id: 1, comment: 'a } b' },
      { id: 2, nested: { deep: { x: '}' } } },
      { id: 3, comment: '},{"id":99}' },
    ];
    const text = JSON.stringify(rows);
    // Cut every chunk right after a "}" that does not end a row.
    const cuts = [...text.matchAll(/\}/g)]
      .map((m) => m.index + 1)
      .filter((at) => !/^(,|\]$)/.test(text.slice(at)));
    expect(cuts.length).toBeGreaterThan(3);
    expect(scanAll(bytesOf(text), cuts, { ...LARGE, batchBytes: 1 })).toEqual({ rows });
  });

  it('counts the bytes it was given', () => {
    const scanner = new JsonArrayScanner(LARGE);
    scanner.push(bytesOf('[1,'));
    scanner.push(bytesOf('2] '));
    expect(scanner.bytes).toBe(6);
  });
});

/** Every row of a body with the text and UTF-8 validity its batch gives for it. */
function scanTexts(
  bytes: Uint8Array,
  cuts: readonly number[],
  options: JsonArrayScannerOptions,
): { text: string; utf8: boolean }[] {
  const scanner = new JsonArrayScanner(options);
  const out: { text: string; utf8: boolean }[] = [];
  const take = (batch: RawRows): void => {
    for (let i = 0; i < batch.length; i++) {
      const texts = batch.texts;
      if (texts === undefined) throw new Error('a batch without its texts');
      out.push({ text: texts.textOf(i), utf8: texts.isUtf8(i) });
      if (texts.allUtf8 && !texts.isUtf8(i)) throw new Error('allUtf8 but a row is not');
    }
  };
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut < from) continue;
    take(scanner.push(bytes.subarray(from, cut)));
    from = cut;
  }
  take(scanner.end());
  return out;
}

// Row texts as an upstream may write them: any JSON value in any spelling, numbers JSON.parse
// rounds or keeps, and bytes that are not UTF-8 inside strings.
const numberText = fc.constantFrom(
  '9007199254740993',
  '9007199254740992',
  '-9007199254740993',
  '9007199254740990.9',
  '1.000000000000000001',
  '1e-400',
  '-0',
  '1.0',
  '1E3',
  '12345678901234567890123',
);
const notUtf8 = fc.constantFrom([0xff], [0xc3, 0x28], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0x80]);
const rowText = fc.oneof(
  fc
    .tuple(value, fc.constantFrom(0, 1, 2))
    .map(([v, indent]) => Buffer.from(JSON.stringify(v, null, indent))),
  fc
    .tuple(numberText, nastyString)
    .map(([n, s]) => Buffer.from(`{"id":${n}, "s" :${JSON.stringify(s)},"n":[${n}]}`)),
  fc
    .tuple(notUtf8, nastyString)
    .map(([b, s]) =>
      Buffer.concat([bytesOf(`{"c":"${JSON.stringify(s).slice(1, -1)}`), Buffer.from(b), bytesOf('"}')]),
    ),
);
const space = fc.constantFrom('', ' ', '\n', '\r\n\t ');

describe('JsonArrayScanner row texts', () => {
  it("gives every row's exact bytes as received, however the body is cut and batched", () => {
    fc.assert(
      fc.property(
        fc
          .record({
            rows: fc.array(fc.tuple(space, rowText, space), { maxLength: 20 }),
            lead: space,
            trail: space,
          })
          .map(({ rows, lead, trail }) => {
            const parts: Buffer[] = [bytesOf(`${lead}[`)];
            rows.forEach(([before, row, after], i) => {
              if (i > 0) parts.push(bytesOf(','));
              parts.push(bytesOf(before), row, bytesOf(after));
            });
            parts.push(bytesOf(`]${trail}`));
            return { body: Buffer.concat(parts), rows: rows.map(([, row]) => row) };
          })
          .chain((b) => fc.tuple(fc.constant(b), cutsFor(b.body.length), batchBytes)),
        ([{ body, rows }, cuts, batch]) => {
          const got = scanTexts(body, cuts, { ...LARGE, batchBytes: batch });
          expect(got).toEqual(rows.map((row) => ({ text: row.toString('utf8'), utf8: isUtf8(row) })));
          for (const [i, row] of rows.entries())
            if (isUtf8(row)) expect(Buffer.from(got[i]!.text)).toEqual(row);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps with each batch the text of its own rows, until it is released', () => {
    const rows = Array.from(
      { length: 50 },
      (_, i) => `{"id":${9_007_199_254_740_993n + BigInt(i)},"s":"${'x'.repeat(i)}"}`,
    );
    const scanner = new JsonArrayScanner({ ...LARGE, batchBytes: 100 });
    const batches = [scanner.push(bytesOf('['))];
    rows.forEach((row, i) => batches.push(scanner.push(bytesOf(i === 0 ? row : `,${row}`))));
    batches.push(scanner.push(bytesOf(']')), scanner.end());
    expect(batches.flatMap((b) => b.map((_, i) => b.texts?.textOf(i)))).toEqual(rows);
    expect(batches.filter((b) => b.length > 0).length).toBeGreaterThan(1);
    for (const b of batches.filter((b) => b.length > 0)) {
      expect(() => b.texts?.textOf(b.length)).toThrow(RangeError);
      b.texts?.release();
      expect(() => b.texts?.textOf(0)).toThrow(/released/);
    }
  });
});
