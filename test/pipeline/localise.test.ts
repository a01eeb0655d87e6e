import fc from 'fast-check';
import { readFileSync, readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { formatDateTime, formatDay, formatOffset, formatUtc } from 'wfm-contract/civil-time';
import type { ShiftRecord } from '../../src/domain/shift-record.js';
import { recordOf } from './support/shift-records.js';
import { shiftRow } from './support/shift-rows.js';

function localised(patch: Record<string, unknown>): ShiftRecord {
  return recordOf(shiftRow(patch));
}

/** An independent reference: Date's UTC methods (never the machine's zone) on milliseconds. */
function referenceLocal(utcText: string, offsetMinutes: number): string {
  const ms = Date.parse(`${utcText.slice(0, 19)}Z`) + offsetMinutes * 60_000;
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

describe('localise', () => {
  it('puts a 23:30 UTC start at +01:00 on the next business date', () => {
    const record = localised({
      start_time: '2024-05-01T23:30:00',
      start_time_offset: 60,
      finish_time: '2024-05-02T07:30:00',
      finish_time_offset: 60,
    });
    expect(formatDateTime(record.startLocal)).toBe('2024-05-02 00:30:00');
    expect(formatDay(record.businessDay)).toBe('2024-05-02');
  });

  it('puts a 02:00 UTC start at -05:00 on the previous business date', () => {
    const record = localised({
      start_time: '2024-05-02T02:00:00',
      start_time_offset: -300,
      finish_time: '2024-05-02T10:00:00',
      finish_time_offset: -300,
    });
    expect(formatDateTime(record.startLocal)).toBe('2024-05-01 21:00:00');
    expect(formatDay(record.businessDay)).toBe('2024-05-01');
  });

  it('localises every offset from -12:00 to +14:00 in 15-minute steps', () => {
    for (let offset = -720; offset <= 840; offset += 15) {
      const record = localised({
        start_time: '2024-03-10T11:59:30',
        start_time_offset: offset,
        finish_time: '2024-03-10T19:59:30',
        finish_time_offset: offset,
      });
      const expected = referenceLocal('2024-03-10T11:59:30', offset);
      expect(formatDateTime(record.startLocal)).toBe(expected);
      expect(formatDateTime(record.finishLocal)).toBe(referenceLocal('2024-03-10T19:59:30', offset));
      expect(formatDay(record.businessDay)).toBe(expected.slice(0, 10));
      expect(formatOffset(offset)).toBe(
        `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`,
      );
    }
  });

  it('keeps a night shift that crosses local midnight on the date it started', () => {
    const record = localised({
      start_time: '2024-05-01T19:00:00',
      start_time_offset: 180,
      finish_time: '2024-05-02T03:00:00',
      finish_time_offset: 180,
      duration: 28_800,
    });
    expect(formatDateTime(record.startLocal)).toBe('2024-05-01 22:00:00');
    expect(formatDateTime(record.finishLocal)).toBe('2024-05-02 06:00:00');
    expect(formatDay(record.businessDay)).toBe('2024-05-01');
  });

  it('lands on 29 February in a leap year and on 1 March otherwise', () => {
    const leap = localised({
      start_time: '2024-02-28T23:00:00',
      start_time_offset: 60,
      finish_time: '2024-02-29T07:00:00',
    });
    expect(formatDateTime(leap.startLocal)).toBe('2024-02-29 00:00:00');
    const common = localised({
      start_time: '2023-02-28T23:00:00',
      start_time_offset: 60,
      finish_time: '2023-03-01T07:00:00',
    });
    expect(formatDateTime(common.startLocal)).toBe('2023-03-01 00:00:00');
    const century = localised({
      start_time: '2100-02-28T23:00:00',
      start_time_offset: 60,
      finish_time: '2100-03-01T07:00:00',
    });
    expect(formatDateTime(century.startLocal)).toBe('2100-03-01 00:00:00');
  });

  it('crosses the year end in both directions', () => {
    const forward = localised({
      start_time: '2023-12-31T20:00:00',
      start_time_offset: 240,
      finish_time: '2024-01-01T04:00:00',
    });
    expect(formatDateTime(forward.startLocal)).toBe('2024-01-01 00:00:00');
    expect(formatDay(forward.businessDay)).toBe('2024-01-01');
    const backward = localised({
      start_time: '2024-01-01T05:00:00',
      start_time_offset: -360,
      finish_time: '2024-01-01T13:00:00',
    });
    expect(formatDateTime(backward.startLocal)).toBe('2023-12-31 23:00:00');
    expect(formatDay(backward.businessDay)).toBe('2023-12-31');
  });

  it('drops fractional seconds instead of rounding them', () => {
    const record = localised({
      start_time: '2024-05-01T08:00:59.999999999',
      start_time_offset: 0,
      finish_time: '2024-05-01T16:00:00.5',
      finish_time_offset: 0,
    });
    expect(formatUtc(record.startUtc)).toBe('2024-05-01T08:00:59Z');
    expect(formatDateTime(record.startLocal)).toBe('2024-05-01 08:00:59');
    expect(formatUtc(record.finishUtc)).toBe('2024-05-01T16:00:00Z');
  });

  it('uses the finish offset for the finish and the start offset for the start', () => {
    const record = localised({
      start_time: '2024-03-31T00:30:00',
      start_time_offset: 60,
      finish_time: '2024-03-31T08:30:00',
      finish_time_offset: 120,
    });
    expect(formatDateTime(record.startLocal)).toBe('2024-03-31 01:30:00');
    expect(formatDateTime(record.finishLocal)).toBe('2024-03-31 10:30:00');
  });

  it('equals a Date.UTC reference for any instant and offset (property)', () => {
    const instant = fc.record({
      seconds: fc.integer({ min: 0, max: daysSince1970(2200) * 86_400 }),
      fraction: fc.option(fc.stringMatching(/^\d{1,9}$/), { nil: undefined }),
      offset: fc.integer({ min: -720, max: 840 }),
      length: fc.integer({ min: 0, max: 86_400 }),
    });
    fc.assert(
      fc.property(instant, ({ seconds, fraction, offset, length }) => {
        const start = `${formatDateTime(seconds, 'T')}${fraction === undefined ? '' : `.${fraction}`}`;
        const record = localised({
          start_time: start,
          start_time_offset: offset,
          finish_time: formatDateTime(seconds + length, 'T'),
          finish_time_offset: offset,
          duration: length,
        });
        expect(record.startUtc).toBe(seconds);
        expect(formatDateTime(record.startLocal)).toBe(referenceLocal(start, offset));
        expect(formatDay(record.businessDay)).toBe(referenceLocal(start, offset).slice(0, 10));
        expect(record.startLocal).toBe(seconds + offset * 60);
      }),
      { numRuns: 500 },
    );
  });

  it('sets the location status from the two match flags', () => {
    const status = (start: boolean | null, finish: boolean | null): string =>
      localised({ start_location_match: start, finish_location_match: finish }).locationStatus;
    expect(status(true, true)).toBe('both_match');
    expect(status(true, false)).toBe('start_only');
    expect(status(false, true)).toBe('finish_only');
    expect(status(false, false)).toBe('neither');
    expect(status(true, null)).toBe('incomplete');
    expect(status(null, false)).toBe('incomplete');
    expect(status(null, null)).toBe('no_location');
  });
});

function daysSince1970(year: number): number {
  return (year - 1970) * 365 + Math.floor((year - 1969) / 4);
}

describe('localise under another machine time zone', () => {
  const original = process.env['TZ'];
  afterEach(() => {
    if (original === undefined) delete process.env['TZ'];
    else process.env['TZ'] = original;
  });

  function texts(): string[] {
    const out: string[] = [];
    for (let offset = -720; offset <= 840; offset += 45) {
      const record = localised({
        start_time: '2024-10-27T00:30:00.75',
        start_time_offset: offset,
        finish_time: '2024-10-27T08:30:00',
      });
      out.push(
        formatDateTime(record.startLocal),
        formatUtc(record.startUtc),
        formatDay(record.businessDay),
        formatOffset(offset),
      );
    }
    return out;
  }

  it('gives identical text under TZ=UTC and TZ=Asia/Kathmandu', () => {
    process.env['TZ'] = 'UTC';
    expect(new Date(0).getTimezoneOffset()).toBe(0);
    const utc = texts();
    process.env['TZ'] = 'Asia/Kathmandu';
    // Node applies a changed TZ at once: prove the machine zone really moved before comparing
    // (Kathmandu was at +05:30 in 1970).
    expect(new Date(0).getTimezoneOffset()).toBe(-330);
    expect(texts()).toEqual(utc);
  });

  it('never reads the machine clock or zone in the pipeline stages', () => {
    const dir = new URL('../../src/pipeline/', import.meta.url);
    for (const file of readdirSync(dir)) {
      const source = readFileSync(new URL(file, dir), 'utf8');
      expect(source, file).not.toMatch(/\bnew Date\b|\bDate\.|getTimezoneOffset|Intl\.|toLocale/);
    }
  });
});

describe('civil-time formatting', () => {
  it('formats wall clocks, UTC instants, offsets and days with fixed widths', () => {
    expect(formatDateTime(0)).toBe('1970-01-01 00:00:00');
    expect(formatDateTime(-1)).toBe('1969-12-31 23:59:59');
    expect(formatUtc(951_782_400)).toBe('2000-02-29T00:00:00Z');
    expect(formatDateTime(253_402_300_799)).toBe('9999-12-31 23:59:59');
    expect(formatOffset(0)).toBe('+00:00');
    expect(formatOffset(-720)).toBe('-12:00');
    expect(formatOffset(840)).toBe('+14:00');
    expect(formatOffset(345)).toBe('+05:45');
    expect(formatOffset(-30)).toBe('-00:30');
    expect(formatOffset(-570)).toBe('-09:30');
    expect(formatDay(-719_528)).toBe('0000-01-01');
  });
});
