import { describe, expect, it } from 'vitest';
import { filesOfMessage, type MailManifestFile } from '../../src/notify/mail-manifest.js';

const file = (path: string, more: Partial<MailManifestFile> = {}): MailManifestFile => ({
  name: path.split('/').pop() ?? path,
  path,
  bytes: 1,
  rows: 1,
  content_type: 'application/octet-stream',
  ...more,
});

const manifest = {
  files: [
    file('divisions/3/shifts.csv', { division_id: 3 }),
    file('divisions/3/shifts.xlsx', { division_id: 3, lang: 'ru' }),
    file('divisions/3/shifts.de.xlsx', { division_id: 3, lang: 'de' }),
    file('divisions/4/shifts.xlsx', { division_id: 4, lang: 'ru' }),
  ],
};

describe('filesOfMessage', () => {
  it("carries a division's workbook in the reader's language, and its other files", () => {
    expect(filesOfMessage(manifest, 3, ['csv', 'xlsx'], 'de').map((f) => f.path)).toEqual([
      'divisions/3/shifts.csv',
      'divisions/3/shifts.de.xlsx',
    ]);
  });

  it("falls back to the workbook in the export's language (shifts.xlsx) when none is in the reader's", () => {
    expect(filesOfMessage(manifest, 3, ['xlsx'], 'pt-BR').map((f) => f.path)).toEqual([
      'divisions/3/shifts.xlsx',
    ]);
  });

  it('keeps the one workbook of a division written in one language, whatever the reader reads', () => {
    expect(filesOfMessage(manifest, 4, ['xlsx'], 'de').map((f) => f.path)).toEqual([
      'divisions/4/shifts.xlsx',
    ]);
  });
});
