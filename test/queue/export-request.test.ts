import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadExportConfig } from '../../src/config/export-config.js';
import { ShiftExportError } from '../../src/errors.js';
import { BODY_FIELDS, checkExportRequest, MAX_BACKFILL_DAYS } from '../../src/queue/export-request.js';

const config = loadExportConfig({});
const anyDest = (): void => undefined;

function refusal(fn: () => unknown): ShiftExportError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ShiftExportError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('checkExportRequest', () => {
  it('names the CLI flags for a command line', () => {
    const e = refusal(() => checkExportRequest({ from: '2024-03-05', to: '2024-03-01' }, config, anyDest));
    expect(e.toOneLine()).toBe('REQUEST_INVALID: --from 2024-03-05 is after --to 2024-03-01');
  });

  it('names the body fields, never a CLI flag, for an API body', () => {
    const requests = [
      { from: '2024-03-05', to: '2024-03-01' },
      { from: '2024-02-30', to: '2024-03-01' },
      { from: '2024-03-01', to: 'soon' },
      { from: '2024-03-01', to: '2024-03-01', formats: ['pdf'] },
    ];
    const messages = requests.map(
      (request) =>
        refusal(() => checkExportRequest(request, config, anyDest, { fields: BODY_FIELDS })).message,
    );
    expect(messages).toEqual([
      'from 2024-03-05 is after to 2024-03-01',
      'from "2024-02-30" is not a date (expected YYYY-MM-DD)',
      'to "soon" is not a date (expected YYYY-MM-DD)',
      'formats has an unknown format "pdf" (expected csv, xlsx, parquet or a comma-separated list of them)',
    ]);
    for (const m of messages) expect(m).not.toContain('--');
  });

  it('refuses an unknown format as a bad request (REQUEST_INVALID), as docs/errors.md says', () => {
    const errors = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    expect(errors).toMatch(
      /^\| `REQUEST_INVALID` \| no \| [^\n]*an unknown format in `--format` or `formats`/m,
    );
    expect(errors).not.toMatch(/^\| `CONFIG_INVALID` \|[^\n]*an unknown format in `--format`/m);
    const e = refusal(() =>
      checkExportRequest({ from: '2024-03-01', to: '2024-03-01', formats: 'pdf' }, config, anyDest),
    );
    expect(e.code).toBe('REQUEST_INVALID');
    expect(e.message).toBe(
      '--format has an unknown format "pdf" (expected csv, xlsx, parquet or a comma-separated list of them)',
    );
  });

  it('says a backfill over its maximum is to be split into backfills, not "use backfill"', () => {
    const e = refusal(() =>
      checkExportRequest({ from: '2020-01-01', to: '2021-12-31' }, config, anyDest, { backfill: true }),
    );
    expect(e.message).toBe(
      `the period 2020-01-01..2021-12-31 has 731 days, more than the ${MAX_BACKFILL_DAYS} one backfill may cover; split it into several backfills`,
    );
  });

  it('says an export over EXPORT_MAX_DAYS may be split or backfilled', () => {
    const e = refusal(() => checkExportRequest({ from: '2024-01-01', to: '2024-03-01' }, config, anyDest));
    expect(e.message).toBe(
      'the period 2024-01-01..2024-03-01 has 61 days, more than the maximum of 31 (EXPORT_MAX_DAYS); split it or use backfill',
    );
  });
});
