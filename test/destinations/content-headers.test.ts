import { describe, expect, it } from 'vitest';
import { contentDisposition } from '../../src/destinations/content-headers.js';

const period = { from: '2024-05-01', to: '2024-05-07' };

describe('contentDisposition', () => {
  it('saves a file as <from>_<to>_<file>, with an RFC 5987 filename* beside the ASCII one', () => {
    expect(contentDisposition(period, 'shifts.csv')).toBe(
      `attachment; filename="2024-05-01_2024-05-07_shifts.csv"; filename*=UTF-8''2024-05-01_2024-05-07_shifts.csv`,
    );
  });

  it('keeps quotes, backslashes, line breaks and non-ASCII out of the quoted fallback', () => {
    const header = contentDisposition(period, 'a"b\\c\r\nd é(1)*.csv');
    const fallback = /filename="([^"]*)"/.exec(header)?.[1];
    expect(fallback).toBe('2024-05-01_2024-05-07_a_b_c__d___1__.csv');
    expect(header).toContain(
      `filename*=UTF-8''2024-05-01_2024-05-07_a%22b%5Cc%0D%0Ad%20%C3%A9%281%29%2A.csv`,
    );
    expect(header).not.toMatch(/[\r\n]/);
  });
});
