import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plural, type PluralMessage } from '../../src/i18n/plural.js';
import { REPORT_LANGUAGES } from '../../src/i18n/report-language.js';
import { fill, TextFormat, textFormat } from '../../src/i18n/text-format.js';

const NBSP = '\u00a0';

const shifts: PluralMessage = plural({
  one: '{n} смена',
  few: '{n} смены',
  many: '{n} смен',
  other: '{n} смены',
});

describe('TextFormat', () => {
  it('writes a rate as each language does: 84,6 % in Russian and German, 84.6% in English', () => {
    expect(textFormat('en').rate(0.846)).toBe('84.6%');
    // Russian and German put a no-break space before the sign; the exact space is Intl's.
    expect(textFormat('ru').rate(0.846).replace(/\s/u, ' ')).toBe('84,6 %');
    expect(textFormat('de').rate(0.846).replace(/\s/u, ' ')).toBe('84,6 %');
    for (const language of REPORT_LANGUAGES)
      expect(textFormat(language).rate(0.846)).toBe(
        new Intl.NumberFormat(language, {
          style: 'percent',
          minimumFractionDigits: 1,
          maximumFractionDigits: 1,
        }).format(0.846),
      );
  });

  it('keeps one decimal in a rate, a whole one included', () => {
    expect(textFormat('en').rate(1)).toBe('100.0%');
    expect(textFormat('en').rate(0)).toBe('0.0%');
  });

  it('groups thousands as each language does: 1 234 567 in Russian with a no-break space', () => {
    expect(textFormat('ru').integer(1_234_567)).toBe(`1${NBSP}234${NBSP}567`);
    expect(textFormat('en').integer(1_234_567)).toBe('1,234,567');
    for (const language of REPORT_LANGUAGES)
      expect(textFormat(language).integer(1_234_567)).toBe(new Intl.NumberFormat(language).format(1_234_567));
  });

  it('writes a decimal with exactly one digit after the separator', () => {
    expect(textFormat('en').decimal(1.5)).toBe('1.5');
    expect(textFormat('de').decimal(2)).toBe('2,0');
    expect(textFormat('ru').decimal(1.25)).toBe(
      new Intl.NumberFormat('ru', { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(1.25),
    );
  });

  it('writes a change of two shares as signed percentage points with one decimal', () => {
    const en = textFormat('en');
    expect(en.percentPoints(0.012)).toBe('+1.2');
    expect(en.percentPoints(-0.004)).toMatch(/^[-\u2212]0\.4$/);
    expect(en.percentPoints(0)).toBe('0.0');
    const points = (language: string, value: number): string =>
      new Intl.NumberFormat(language, {
        minimumFractionDigits: 1,
        maximumFractionDigits: 1,
        signDisplay: 'exceptZero',
      }).format(value);
    for (const language of REPORT_LANGUAGES) {
      expect(textFormat(language).percentPoints(0.012)).toBe(points(language, 1.2));
      expect(textFormat(language).percentPoints(-0.004)).toBe(points(language, -0.4));
    }
    expect(textFormat('ru').percentPoints(0.012)).toBe('+1,2');
  });

  it('rounds a change of two four-decimal shares half away from zero, whatever the binary difference', () => {
    expect(textFormat('en').percentPoints(0.7308 - 0.6763)).toBe('+5.5');
    expect(textFormat('de').percentPoints(-0.9165)).toBe('-91,7');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), (a, b) => {
        // In hundredths of a point, exactly; then tenths, half away from zero.
        const tenths = Math.sign(a - b) * Math.round(Math.abs(a - b) / 10);
        const digits = `${Math.floor(Math.abs(tenths) / 10)}.${Math.abs(tenths) % 10}`;
        const expected = tenths > 0 ? `+${digits}` : tenths < 0 ? `-${digits}` : digits;
        expect(textFormat('en').percentPoints(a / 10_000 - b / 10_000)).toBe(expected);
      }),
    );
  });

  it('shows a change too small to see as no change, never as a signed zero', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -0.0004, max: 0.0004, noNaN: true }),
        fc.constantFrom(...REPORT_LANGUAGES),
        (d, l) => {
          expect(textFormat(l).percentPoints(d)).toMatch(/^0[.,]0$/);
        },
      ),
    );
  });

  it('counts Russian shifts with CLDR plurals: 1 смена, 2 смены, 5 смен, 21 смена, 1,5 смены', () => {
    const ru = textFormat('ru');
    expect(ru.count(shifts, 1)).toBe('1 смена');
    expect(ru.count(shifts, 2)).toBe('2 смены');
    expect(ru.count(shifts, 5)).toBe('5 смен');
    expect(ru.count(shifts, 11)).toBe('11 смен');
    expect(ru.count(shifts, 21)).toBe('21 смена');
    expect(ru.count(shifts, 1.5)).toBe('1,5 смены');
    expect(ru.count(shifts, 1234)).toBe(`1${NBSP}234 смены`);
  });

  it('picks the form Intl.PluralRules names, and "other" when a language has no form of its own', () => {
    const english = plural({ one: '{n} shift', other: '{n} shifts' });
    const whole = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), (n) => {
        const word = new Intl.PluralRules('en').select(n) === 'one' ? 'shift' : 'shifts';
        expect(textFormat('en').count(english, n)).toBe(`${whole.format(n)} ${word}`);
      }),
    );
    const onlyOther = plural({ other: '{n} ×' });
    expect(textFormat('ru').count(onlyOther, 1)).toBe('1 ×');
  });

  it("writes a business date as the reader's language does, and never shifts it by a time zone", () => {
    const day = new Date(Date.UTC(2026, 10, 9));
    for (const language of REPORT_LANGUAGES)
      expect(textFormat(language).date('2026-11-09')).toBe(
        new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone: 'UTC' }).format(day),
      );
    expect(textFormat('de').date('2026-11-09')).toBe('09.11.2026');
    expect(textFormat('en').date('2026-01-01')).toBe('Jan 1, 2026');
  });

  it('writes a period as one date when it is one day, and as a range Intl joins otherwise', () => {
    const de = textFormat('de');
    expect(de.period('2026-11-09', '2026-11-09')).toBe(de.date('2026-11-09'));
    const range = new Intl.DateTimeFormat('de', { dateStyle: 'medium', timeZone: 'UTC' }).formatRange(
      new Date(Date.UTC(2026, 10, 9)),
      new Date(Date.UTC(2026, 10, 15)),
    );
    expect(de.period('2026-11-09', '2026-11-15')).toBe(range);
    expect(range).toContain('15.11.2026');
  });

  it('is one shared formatter per language', () => {
    expect(textFormat('ru')).toBe(textFormat('ru'));
    expect(textFormat('ru')).not.toBe(textFormat('de'));
    expect(new TextFormat('pt-BR').language).toBe('pt-BR');
  });
});

describe('fill', () => {
  it('puts each named value in its placeholder, as often as it stands', () => {
    expect(fill('{name}: {n} ({name})', { name: 'Центральный', n: 15 })).toBe(
      'Центральный: 15 (Центральный)',
    );
  });

  it('leaves a placeholder without a value visible, so that a missing one shows in a test', () => {
    expect(fill('{a} and {b}', { a: 'x' })).toBe('x and {b}');
  });

  it('does not read a placeholder inside a value again', () => {
    expect(fill('{a}', { a: '{b}', b: 'no' })).toBe('{b}');
  });
});
