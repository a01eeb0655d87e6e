import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ENV_DOCS,
  loadApiConfig,
  loadExportConfig,
  loadQueueConfig,
  loadScheduleConfig,
  loadWfmConfig,
  parseFormats,
  requireUpstream,
} from '../src/config.js';
import { ConfigError } from '../src/errors.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const envExample = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  it('documents every environment variable in the README table with its default', () => {
    for (const [name, doc] of Object.entries(ENV_DOCS)) {
      expect(readme, name).toContain(`| \`${name}\` | \`${doc.default}\` |`);
    }
  });

  it('lists every environment variable in .env.example', () => {
    for (const name of Object.keys(ENV_DOCS))
      expect(envExample, name).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
  });

  it('applies the documented defaults when nothing is set', () => {
    const wfm = loadWfmConfig({});
    expect(wfm.retry.attempts).toBe(Number(ENV_DOCS.WFM_RETRY_ATTEMPTS.default));
    expect(wfm.paging).toBe('none');
    expect(wfm.windowQuery).toBe(ENV_DOCS.WFM_WINDOW_QUERY.default);
    const exp = loadExportConfig({});
    expect(exp.dest).toBe('./exports');
    expect(exp.formats).toEqual(['csv', 'xlsx']);
    expect(exp.csvDelimiter).toBe(',');
    expect(exp.csvBom).toBe(true);
    const queue = loadQueueConfig({});
    expect(queue.prefix).toBe('{shift-export}');
    const schedule = loadScheduleConfig({});
    expect(schedule).toMatchObject({ cron: '0 3 * * *', tz: 'UTC', lookbackDays: 2, enabled: true });
  });

  it('bounds every read by a deadline and a minimum rate, and asks for compression, by default', () => {
    expect(loadWfmConfig({})).toMatchObject({
      read: { deadlineMs: 1_800_000, minBytesPerSec: 1024, rateWindowMs: 60_000 },
      compression: true,
    });
    expect(loadWfmConfig({ WFM_READ_MIN_BYTES_PER_SEC: '0', WFM_COMPRESSION: 'false' })).toMatchObject({
      read: { minBytesPerSec: 0 },
      compression: false,
    });
    expect(configError(() => loadWfmConfig({ WFM_READ_DEADLINE_MS: '0' })).message).toMatch(
      /^WFM_READ_DEADLINE_MS is invalid/,
    );
    expect(configError(() => loadWfmConfig({ WFM_COMPRESSION: 'gzip' })).message).toMatch(
      /^WFM_COMPRESSION is invalid/,
    );
  });

  it('names the variable in one line when a value is malformed', () => {
    const error = configError(() => loadWfmConfig({ WFM_BASE_URL: 'not a url' }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.toOneLine()).toMatch(/^CONFIG_INVALID: WFM_BASE_URL is invalid \("not a url"\)/);
    expect(error.toOneLine()).not.toContain('\n');
    expect(configError(() => loadWfmConfig({ WFM_RETRY_ATTEMPTS: '-1' })).message).toContain(
      'WFM_RETRY_ATTEMPTS',
    );
    expect(configError(() => loadScheduleConfig({ NIGHTLY_TZ: 'Mars/Olympus' })).message).toContain(
      'NIGHTLY_TZ',
    );
    expect(configError(() => loadQueueConfig({ REDIS_URL: 'http://x' })).message).toContain('REDIS_URL');
    expect(configError(() => loadExportConfig({ CSV_DELIMITER: '|' })).message).toContain('CSV_DELIMITER');
  });

  it('reads the token from WFM_TOKEN_FILE, trimmed, and never shows it in errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-'));
    const file = join(dir, 'token');
    writeFileSync(file, '  s3cr3t-token\n');
    expect(loadWfmConfig({ WFM_TOKEN_FILE: file }).token).toBe('s3cr3t-token');
    const missing = configError(() =>
      requireUpstream(loadWfmConfig({ WFM_BASE_URL: 'https://wfm.example.com' })),
    );
    expect(missing.message).toContain('WFM_TOKEN');
    const badFile = configError(() => loadWfmConfig({ WFM_TOKEN_FILE: join(dir, 'absent') }));
    expect(badFile.message).toContain('WFM_TOKEN_FILE');
  });

  it('refuses to start the API without a token and splits several', () => {
    expect(configError(() => loadApiConfig({})).message).toContain('API_TOKENS');
    expect(loadApiConfig({ API_TOKENS: 'a, b ,c' }).tokens).toEqual(['a', 'b', 'c']);
  });

  it('parses formats and refuses unknown ones by name', () => {
    expect(parseFormats('xlsx, CSV', '--format')).toEqual(['csv', 'xlsx']);
    expect(() => parseFormats('pdf', '--format')).toThrow(/--format has an unknown format "pdf"/);
    expect(() => parseFormats(' , ', '--format')).toThrow(/--format names no format/);
  });
});
