import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayElementBounds, objectNumberTexts } from '../../src/domain/json-text.js';

const space = fc.constantFrom('', ' ', '\n', '\r\n\t ');
const element = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v, null, 1)),
  fc.constantFrom('"a,]}\\"\\\\"', '[[],{}]', '{"s":"}],["}', '-0.5e-7', 'null'),
);

describe('arrayElementBounds', () => {
  it('finds each element of any array, outer white space trimmed', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(space, element, space)), space, space, (items, lead, trail) => {
        const text = `${lead}[${items.map(([a, e, b]) => a + e + b).join(',')}]${trail}`;
        const bounds = arrayElementBounds(text);
        const slices = items.map((_, i) => text.slice(bounds[2 * i], bounds[2 * i + 1]));
        expect(slices).toEqual(items.map(([, e]) => e));
        expect(bounds).toHaveLength(2 * items.length);
      }),
      { numRuns: 500 },
    );
  });
});

describe('objectNumberTexts', () => {
  it('gives the top-level numbers as written, keys decoded, the last of a repeated key', () => {
    const text =
      '{ "id" : 1.0E3 , "s":"\\"id\\":5", "n":{"id":7}, "l":[1], "\\u0064":-0, "t":true, "id":90071992547409931 }';
    expect(objectNumberTexts(text)).toEqual(
      new Map([
        ['d', '-0'],
        ['id', '90071992547409931'],
      ]),
    );
    expect(objectNumberTexts('{"id":1,"id":"x"}')).toEqual(new Map());
    expect(objectNumberTexts('[1]')).toEqual(new Map());
  });
});
