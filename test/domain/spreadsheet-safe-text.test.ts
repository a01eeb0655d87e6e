import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isSpreadsheetSafe,
  REPLACEMENT_CHARACTER,
  spreadsheetSafeText,
} from '../../src/domain/spreadsheet-safe-text.js';
import { isXmlChar } from '../support/xml-char.js';

/** The rule, written the slow and obvious way: code point by code point. */
function reference(text: string): string {
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0;
    out += isXmlChar(code) && code !== 0x7f ? c : REPLACEMENT_CHARACTER;
  }
  return out;
}

// Strings dense in what matters: controls, DEL, C1, surrogates (paired and not), U+FFFE/U+FFFF.
const hostileUnit = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0, max: 0x9f }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\uFFFE', '\uFFFF', '\uFFFD', '😀', '\uD83D\uDE00', '\uFDD0', '\u{1FFFE}', 'a', 'Ж'),
);
const hostileText = fc.oneof(
  fc.string({ unit: hostileUnit, maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
);

describe('spreadsheetSafeText', () => {
  it('replaces exactly the code points XML 1.0 cannot hold, and DEL, each by one U+FFFD', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(spreadsheetSafeText(text)).toBe(reference(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('gives text that holds only XML 1.0 characters', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const safe = spreadsheetSafeText(text);
        for (const c of safe) expect(isXmlChar(c.codePointAt(0) ?? 0)).toBe(true);
        expect(isSpreadsheetSafe(safe)).toBe(true);
        expect(isSpreadsheetSafe(text)).toBe(safe === text);
      }),
      { numRuns: 5000 },
    );
  });

  it('returns a safe text itself, emoji and C1 controls included', () => {
    for (const text of [
      '',
      'Anna',
      'Всё в порядке 🎉',
      'tab\tLF\nCR\r',
      'C1 \u0085\u009f',
      '\uFDD0\u{1FFFE}',
    ]) {
      expect(spreadsheetSafeText(text)).toBe(text);
      expect(isSpreadsheetSafe(text)).toBe(true);
    }
  });

  it.each([
    ['U+FFFE', 'a\uFFFEb', 'a\uFFFDb'],
    ['U+FFFF', '\uFFFF', '\uFFFD'],
    ['NUL', 'a\u0000b', 'a\uFFFDb'],
    ['ESC and BEL', '\u001B[1m\u0007', '\uFFFD[1m\uFFFD'],
    ['DEL', 'x\u007F', 'x\uFFFD'],
    ['a lone high surrogate', 'a\uD83Db', 'a\uFFFDb'],
    ['a lone low surrogate', '\uDE00a', '\uFFFDa'],
    ['two high surrogates before a low one', '\uD83D\uD83D\uDE00', '\uFFFD😀'],
  ])('replaces %s', (_name, text, expected) => {
    expect(spreadsheetSafeText(text)).toBe(expected);
  });
});
