// What every printed page of the workbook says about itself, in the reader's language: at the top
// the sheet's name, the division (a division's workbook) and the report's title with its period;
// at the bottom "Page 3 of 41". A page that lands on a desk apart from the others still tells
// whose figures it holds and for when.
//
// Header and footer are SpreadsheetML's codes (ECMA-376 part 1, 18.3.1.39): `&L` `&C` `&R` begin
// the left, centre and right sections, `&A` is the sheet's name, `&P` the page, `&N` the pages, and
// a literal ampersand is `&&`. Text from elsewhere (a division's name comes from the upstream) is
// made safe for XML, kept on one line, escaped, and shortened: Excel refuses a header or footer
// longer than 255 characters.

import { spreadsheetSafeText } from '../../domain/spreadsheet-safe-text.js';
import { fill } from '../../i18n/text-format.js';

/** The most characters Excel accepts in one header or footer, codes included. */
export const HEADER_FOOTER_MAX_LENGTH = 255;
/** The most characters of one text taken into a header: two of them, with the codes, stay under the limit. */
const SECTION_TEXT_MAX_LENGTH = 100;

export interface PageHeaderFooter {
  readonly oddHeader: string;
  readonly oddFooter: string;
}

export interface PageTexts {
  /** The report's title with its period: "Shifts 2024-03-25 to 2024-03-31". */
  readonly title: string;
  /** A division's workbook: "Division: Центральный"; none for the whole export. */
  readonly division?: string;
  /** The footer, with `{page}` and `{pages}`: "Page {page} of {pages}". */
  readonly pageOfPages: string;
}

/**
 * One text as a header section holds it: one line, XML-safe, `&` doubled, at most
 * SECTION_TEXT_MAX_LENGTH characters once escaped (an ellipsis ends a shortened one).
 */
export function headerText(text: string): string {
  const line = spreadsheetSafeText(text)
    .replace(/[\r\n\t]+/g, ' ')
    .trim();
  const escaped = line.replace(/&/g, '&&');
  if (escaped.length <= SECTION_TEXT_MAX_LENGTH) return escaped;
  let end = SECTION_TEXT_MAX_LENGTH - 1;
  // Never half of a surrogate pair, nor half of an escaped ampersand.
  const last = escaped.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  const ampersands = /&*$/.exec(escaped.slice(0, end))?.[0].length ?? 0;
  if (ampersands % 2 === 1) end -= 1;
  return `${escaped.slice(0, end)}…`;
}

/** The header and footer of every sheet of one workbook. */
export function pageHeaderFooter(texts: PageTexts): PageHeaderFooter {
  const division = texts.division === undefined ? '' : `&C${headerText(texts.division)}`;
  // The catalog's words are escaped; the codes for the numbers are put in afterwards.
  const footer = fill(headerText(texts.pageOfPages), { page: '&P', pages: '&N' });
  return {
    oddHeader: `&L&A${division}&R${headerText(texts.title)}`,
    oddFooter: `&C${footer}`,
  };
}
