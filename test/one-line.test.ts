import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeError, ShiftExportError } from '../src/errors.js';
import { oneLine } from '../src/one-line.js';

// What a terminal acts on: C0, DEL, C1, line/paragraph separators, bidi controls.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ACTIVE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('oneLine', () => {
  it('writes an escape sequence as visible text instead of sending it to the terminal', () => {
    expect(oneLine('red \u001b[31mALERT\u001b[0m')).toBe('red \\u{1b}[31mALERT\\u{1b}[0m');
  });

  it('turns line breaks, a lone CR included, into one space', () => {
    expect(oneLine('first\r\n  second\rthird\nfourth')).toBe('first second third fourth');
  });

  it('escapes C1 controls and bidi overrides (Trojan Source)', () => {
    expect(oneLine('a\u009bb\u202ec\u2066d')).toBe('a\\u{9b}b\\u{202e}c\\u{2066}d');
  });

  it('leaves printable text, emoji and non-Latin scripts as they are', () => {
    expect(oneLine('Смена 08:00 — 🚀 ok')).toBe('Смена 08:00 — 🚀 ok');
  });

  it('never leaves a character a terminal acts on, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(oneLine(text)).not.toMatch(ACTIVE);
      }),
    );
  });
});

describe('describeError', () => {
  it('prints an error that quotes hostile upstream text as one inert line', () => {
    const error = new ShiftExportError('WFM_BODY_INVALID', 'got <html>\r\n\u001b]0;pwned\u0007');
    expect(describeError(error)).toBe('WFM_BODY_INVALID: got <html> \\u{1b}]0;pwned\\u{7}');
    expect(describeError(new Error('a\u001bb'))).toBe('Error: a\\u{1b}b');
  });
});
