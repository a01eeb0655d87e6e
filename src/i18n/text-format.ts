// Numbers, rates, dates and counted words inside a reader's text, in the reader's language, through
// Intl only: 84,6 % in Russian and German, 84.6% in English, 1 234 567 in Russian (with U+00A0),
// 2026-11-09 as 09.11.2026 in German. Never string surgery on a formatted number. Cells of a
// workbook do not come here: they stay numbers with locale-neutral format codes, and the viewer's
// spreadsheet shows its own separators.

import type { PluralMessage } from './plural.js';
import type { ReportLanguage } from './report-language.js';

export class TextFormat {
  readonly language: ReportLanguage;
  private readonly integers: Intl.NumberFormat;
  private readonly oneDecimal: Intl.NumberFormat;
  private readonly rates: Intl.NumberFormat;
  private readonly preciseRates: Intl.NumberFormat;
  private readonly points: Intl.NumberFormat;
  private readonly dates: Intl.DateTimeFormat;
  private readonly plurals: Intl.PluralRules;

  constructor(language: ReportLanguage) {
    this.language = language;
    this.integers = new Intl.NumberFormat(language, { maximumFractionDigits: 0 });
    this.oneDecimal = new Intl.NumberFormat(language, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
    this.rates = new Intl.NumberFormat(language, {
      style: 'percent',
      minimumFractionDigits: 1,
      maximumFractionDigits: 1,
    });
    this.preciseRates = new Intl.NumberFormat(language, {
      style: 'percent',
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    });
    // Percentage points keep their sign, so "+1,2" and "−0,4" read as a change.
    this.points = new Intl.NumberFormat(language, {
      minimumFractionDigits: 1,
      maximumFractionDigits: 1,
      signDisplay: 'exceptZero',
    });
    this.dates = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone: 'UTC' });
    this.plurals = new Intl.PluralRules(language);
  }

  /** A whole number: 1,234,567 / 1 234 567 / 1.234.567. */
  integer(value: number): string {
    return this.integers.format(value);
  }

  /** A number with one decimal: 1.5 / 1,5. */
  decimal(value: number): string {
    return this.oneDecimal.format(value);
  }

  /** A share from 0 to 1 as a percentage with one decimal (or two): 84.6% / 84,6 % (84.62%). */
  rate(share: number, decimals: 1 | 2 = 1): string {
    return (decimals === 2 ? this.preciseRates : this.rates).format(share);
  }

  /** A difference of two shares in percentage points, signed, one decimal: +1.2 / −0,4 / 0.0. */
  percentPoints(difference: number): string {
    // Shares of four decimals differ by whole hundredths of a point, but the binary difference
    // times 100 can land just beside a half (0.7308 − 0.6763 gives 5.4499…): ten significant
    // digits drop that noise, so 5.45 shows as +5.5, as the Overview's cell does.
    return this.points.format(Number((difference * 100).toPrecision(10)));
  }

  /** A business date (`YYYY-MM-DD`) as the reader writes dates: Nov 9, 2026 / 9 нояб. 2026 г. */
  date(isoDate: string): string {
    const [y, m, d] = isoDate.split('-').map(Number);
    return this.dates.format(new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1)));
  }

  /** A period of business dates, both inclusive: one date, or from–to as Intl joins a range. */
  period(from: string, to: string): string {
    if (from === to) return this.date(from);
    const day = (iso: string): Date => {
      const [y, m, d] = iso.split('-').map(Number);
      return new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1));
    };
    return this.dates.formatRange(day(from), day(to));
  }

  /**
   * A plural message for `count`, `{n}` replaced by the count as this language writes it (whole
   * numbers as integers, others with one decimal): 1 смена, 2 смены, 5 смен, 1,5 часа.
   */
  count(message: PluralMessage, count: number): string {
    const category = this.plurals.select(count);
    const form = message.plural[category] ?? message.plural.other;
    const shown = Number.isInteger(count) ? this.integer(count) : this.decimal(count);
    return form.replaceAll('{n}', shown);
  }
}

const FORMATS = new Map<ReportLanguage, TextFormat>();

/** The (shared, immutable) formatter of a language. */
export function textFormat(language: ReportLanguage): TextFormat {
  let format = FORMATS.get(language);
  if (format === undefined) {
    format = new TextFormat(language);
    FORMATS.set(language, format);
  }
  return format;
}

/** `{name}` placeholders of a catalog text filled in; a missing value leaves the placeholder visible. */
export function fill(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : String(value);
  });
}
