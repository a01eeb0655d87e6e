// fast-check arbitraries for text that breaks naive CSV writers: quotes, every delimiter, CR, LF,
// CRLF, emoji and other astral characters, leading formula characters, empty strings.

import fc from 'fast-check';

const PIECES = [
  '"',
  '""',
  ',',
  ';',
  '\t',
  '\r',
  '\n',
  '\r\n',
  '=',
  '+',
  '-',
  '@',
  "'",
  ' ',
  'a',
  'Ж',
  'é',
  '😀',
  '👩‍👩‍👧',
  '\uFF1D',
  '\0',
  '1',
] as const;

/** Text made of the pieces above, plus any well-formed Unicode text. */
export const nastyText: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }).map((parts) => parts.join('')),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom('', '=1+2', '-12', '@SUM(A1)', '\r\n', '"', 'a,b', 'line one\nline two'),
);

/** Like nastyText, but also with lone surrogates (which UTF-8 writes as U+FFFD). */
export const nastyTextWithLoneSurrogates: fc.Arbitrary<string> = fc.oneof(
  nastyText,
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('\uD800', 'a\uDFFFb'),
);
