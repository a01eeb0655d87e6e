import { describe, expect, it } from 'vitest';
import {
  assertExportId,
  assertFileName,
  assertFilePath,
  fileNameOf,
  isFilePath,
  relativePathSegments,
  safePeriodKey,
} from '../../src/destinations/safe-names.js';

const invalid = expect.objectContaining({ code: 'DEST_INVALID' });

describe('relativePathSegments', () => {
  it('splits a manifest path into its segments', () => {
    expect(relativePathSegments('shifts.csv')).toEqual(['shifts.csv']);
    expect(relativePathSegments('20240508T030000Z-ab12/shifts.csv')).toEqual([
      '20240508T030000Z-ab12',
      'shifts.csv',
    ]);
  });

  it('refuses traversal, absolute paths, empty segments, backslashes and control characters', () => {
    for (const path of [
      '',
      '..',
      '../x',
      'a/../../x',
      './x',
      '/etc/passwd',
      'a//b',
      'a/',
      'a\\..\\b',
      'a\u0000b',
      'a\nb',
    ]) {
      expect(() => relativePathSegments(path), JSON.stringify(path)).toThrow(invalid);
    }
  });
});

describe('assertFileName', () => {
  it('accepts the export file names and refuses paths, hidden names and manifest.json', () => {
    for (const name of ['shifts.csv', 'summary_by_division.csv', 'shifts.xlsx', 'rejected.csv'])
      expect(() => assertFileName(name)).not.toThrow();
    for (const name of ['', '.env', 'a/b', '..', 'manifest.json', 'x y.csv', 'é.csv']) {
      expect(() => assertFileName(name), JSON.stringify(name)).toThrow(invalid);
    }
  });
});

describe('assertExportId', () => {
  it('accepts the ids newExportId makes and refuses dots, slashes and empty ids', () => {
    expect(() => assertExportId('20261121T065900Z-0a1b2c3d')).not.toThrow();
    for (const id of ['', '.', 'a.b', 'a/b', '-x', 'x'.repeat(129)])
      expect(() => assertExportId(id), id).toThrow(invalid);
  });
});

describe('safePeriodKey', () => {
  it('is <from>_<to>, and refuses a period that is not two dates', () => {
    expect(safePeriodKey({ from: '2024-05-01', to: '2024-05-07' })).toBe('2024-05-01_2024-05-07');
    expect(() => safePeriodKey({ from: '../x', to: '2024-05-07' })).toThrow(invalid);
  });
});

describe('assertFilePath', () => {
  it('accepts a file name, or one in at most two folders of file-name segments', () => {
    for (const path of ['shifts.csv', 'divisions/12/shifts.xlsx', 'divisions/12/row-hashes.bin']) {
      expect(() => assertFilePath(path)).not.toThrow();
      expect(isFilePath(path)).toBe(true);
    }
    expect(fileNameOf('divisions/12/shifts.xlsx')).toBe('shifts.xlsx');
    expect(fileNameOf('shifts.csv')).toBe('shifts.csv');
  });

  it('refuses traversal, empty or hidden segments, deeper folders and manifest.json', () => {
    for (const path of [
      '../x',
      'a/../b',
      'a//b',
      '/a',
      'a/',
      '.hidden/x',
      'a/b/c/d',
      'manifest.json',
      'manifest.json/x',
    ]) {
      expect(() => assertFilePath(path), path).toThrow(invalid);
    }
    expect(isFilePath('a/b/c/d')).toBe(false);
  });
});
