import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HEADER_FOOTER_MAX_LENGTH,
  headerText,
  pageHeaderFooter,
} from '../../../src/render/xlsx/page-header-footer.js';

/** The literal text of a header or footer, as a spreadsheet prints it: codes taken out, `&&` an ampersand. */
function printedText(codes: string): string {
  return codes.replace(/&(&|[LCRAPN])/g, (_whole, code: string) => (code === '&' ? '&' : '\u0000'));
}

describe('pageHeaderFooter', () => {
  it('names the sheet left, the division in the middle, the title right, and counts the pages below', () => {
    const page = pageHeaderFooter({
      title: 'Shifts 2024-03-25 to 2024-03-31',
      division: 'Division: North & South',
      pageOfPages: 'Page {page} of {pages}',
    });
    expect(page.oddHeader).toBe('&L&A&CDivision: North && South&RShifts 2024-03-25 to 2024-03-31');
    expect(page.oddFooter).toBe('&CPage &P of &N');
  });

  it('leaves the middle out for the whole export', () => {
    const page = pageHeaderFooter({
      title: 'Смены 25.03–31.03.2024',
      pageOfPages: 'Страница {page} из {pages}',
    });
    expect(page.oddHeader).toBe('&L&A&RСмены 25.03–31.03.2024');
    expect(page.oddFooter).toBe('&CСтраница &P из &N');
  });

  it("keeps any division name within Excel's 255 characters, on one line, with no code of its own", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (name) => {
        const page = pageHeaderFooter({
          title: 'Shifts 2024-03-25 to 2024-03-31',
          division: `Division: ${name}`,
          pageOfPages: 'Page {page} of {pages}',
        });
        expect(page.oddHeader.length).toBeLessThanOrEqual(HEADER_FOOTER_MAX_LENGTH);
        const section = /&C(.*)&R/.exec(page.oddHeader)?.[1] ?? '';
        // Every ampersand of the name is doubled: nothing in it starts a code.
        expect(section.replace(/&&/g, '')).not.toContain('&');
        expect(section).not.toMatch(/[\r\n]/);
        expect(printedText(section).startsWith('Division:')).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});

describe('headerText', () => {
  it('shortens a long text with an ellipsis, never splitting a surrogate pair', () => {
    const long = `${'x'.repeat(98)}😀tail`;
    const text = headerText(long);
    expect(text.length).toBeLessThanOrEqual(100);
    expect(text.endsWith('…')).toBe(true);
    expect(text).not.toMatch(/[\uD800-\uDBFF]…$/);
  });

  it('replaces what XML cannot hold', () => {
    expect(headerText('a\u0001b')).toBe('a\uFFFDb');
  });
});

describe('headerText, escaped', () => {
  it('counts the doubled ampersands and never leaves one alone at the cut', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('&', 'a', 'я'), { maxLength: 300 }), (chars) => {
        const text = headerText(chars.join(''));
        expect(text.length).toBeLessThanOrEqual(100);
        expect(text.replace(/&&/g, '')).not.toContain('&');
      }),
    );
  });
});
