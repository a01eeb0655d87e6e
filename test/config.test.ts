import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_DOCS, type EnvName } from '../src/config/config-groups.js';
import { loadApiConfig } from '../src/config/api-config.js';
import { loadExportConfig } from '../src/config/export-config.js';
import { loadLogLevel } from '../src/config/log-level.js';
import { loadNotifyConfig } from '../src/config/notify-config.js';
import { loadQueueConfig } from '../src/config/queue-config.js';
import { loadQueueTuning } from '../src/config/queue-tuning.js';
import { loadS3Config } from '../src/config/s3-config.js';
import { loadScheduleConfig } from '../src/config/schedule-config.js';
import { loadSmtpConfig } from '../src/config/smtp-config.js';
import { loadWfmConfig, requireUpstream } from '../src/config/wfm-config.js';
import { parseFormats } from '../src/domain/export-format.js';
import { REPORT_LANGUAGES } from '../src/i18n/report-language.js';
import {
  CONFIG_TABLE_END,
  CONFIG_TABLE_START,
  CONFIGURATION_PAGE,
  REGENERATE_COMMAND,
  renderConfigTable,
  renderEnvExample,
  withConfigTable,
} from '../src/config/config-docs.js';
import { ConfigError, ShiftExportError } from '../src/errors.js';
import { isSecretName } from '../src/redact-secrets.js';
import { tempFolderForTest } from './support/temp-folder.js';

const configurationPage = readFileSync(new URL(`../${CONFIGURATION_PAGE}`, import.meta.url), 'utf8');
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
  it('has the table of docs/configuration.md as `npm run docs:config` writes it', () => {
    const table = configurationPage.slice(
      configurationPage.indexOf(CONFIG_TABLE_START) + CONFIG_TABLE_START.length,
      configurationPage.indexOf(CONFIG_TABLE_END),
    );
    expect(
      table.trim(),
      `${CONFIGURATION_PAGE}'s configuration table is stale: run \`${REGENERATE_COMMAND}\``,
    ).toBe(renderConfigTable());
    expect(withConfigTable(configurationPage)).toBe(configurationPage);
  });

  it('has .env.example as `npm run docs:config` writes it', () => {
    expect(envExample, `.env.example is stale: run \`${REGENERATE_COMMAND}\``).toBe(renderEnvExample());
  });

  it('derives each documented default from the schema, through the transforms after it', () => {
    expect(ENV_DOCS.S3_PART_SIZE_MB.default).toBe('8');
    expect(loadS3Config({}).partSizeBytes).toBe(8 * 1024 * 1024);
    expect(ENV_DOCS.CSV_DELIMITER.default).toBe(',');
    expect(ENV_DOCS.WFM_MAX_BODY_BYTES.default).toBe(String(loadWfmConfig({}).maxBodyBytes));
    expect(ENV_DOCS.S3_SSE).toMatchObject({ default: '(none)', value: undefined });
    expect(ENV_DOCS.API_TOKENS.default).toBe('(none: the API refuses to start)');
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
    expect(exp.reportLang).toBe('en');
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

  it('writes a decimal comma with a ";" delimiter unless CSV_DECIMAL says otherwise', () => {
    expect(loadExportConfig({}).csvDecimal).toBe('.');
    expect(loadExportConfig({ CSV_DELIMITER: ';' }).csvDecimal).toBe(',');
    expect(loadExportConfig({ CSV_DELIMITER: 'tab' }).csvDecimal).toBe('.');
    expect(loadExportConfig({ CSV_DELIMITER: ';', CSV_DECIMAL: '.' }).csvDecimal).toBe('.');
    expect(loadExportConfig({ CSV_DELIMITER: 'tab', CSV_DECIMAL: ',' }).csvDecimal).toBe(',');
    expect(configError(() => loadExportConfig({ CSV_DECIMAL: ',' })).message).toMatch(
      /^CSV_DECIMAL "," needs CSV_DELIMITER ";" or "tab"/,
    );
    expect(configError(() => loadExportConfig({ CSV_DECIMAL: ';' })).message).toContain('CSV_DECIMAL');
  });

  it('renders on one thread per CPU unless EXPORT_THREADS says otherwise; a worker shares the CPUs among its exports', () => {
    const cpus = availableParallelism();
    expect(loadExportConfig({}).threads).toBe(cpus);
    expect(loadExportConfig({}, 2).threads).toBe(Math.max(1, Math.floor(cpus / 2)));
    expect(loadExportConfig({}, cpus * 4).threads).toBe(1);
    expect(loadExportConfig({ EXPORT_THREADS: '3' }, 2).threads).toBe(3);
    for (const bad of ['0', '-1', '1.5', 'many', '257'])
      expect(configError(() => loadExportConfig({ EXPORT_THREADS: bad })).message).toMatch(/^EXPORT_THREADS/);
  });

  it('reads the token from WFM_TOKEN_FILE, trimmed, and never shows it in errors', () => {
    const dir = tempFolderForTest('config-');
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
    const [a, b, c] = ['a'.repeat(16), 'b'.repeat(20), 'c'.repeat(32)];
    expect(loadApiConfig({ API_TOKENS: `${a}, ${b} ,${c}` }).tokens).toEqual([a, b, c]);
  });

  it('refuses an API token shorter than 16 characters, naming the variable but not the token', () => {
    const short = configError(() => loadApiConfig({ API_TOKENS: `${'x'.repeat(16)},Sup3rShort` }));
    expect(short.toOneLine()).toMatch(/^CONFIG_INVALID: API_TOKENS has a token shorter than 16 characters/);
    expect(short.toOneLine()).not.toContain('Sup3rShort');
    expect(configError(() => loadApiConfig({ API_TOKENS: 'x' })).message).toContain('API_TOKENS');
    expect(loadApiConfig({ API_TOKENS: 'x'.repeat(16) }).tokens).toEqual(['x'.repeat(16)]);
  });

  it('reads the API tokens from API_TOKENS_FILE, comma- or line-separated, when API_TOKENS is unset', () => {
    const dir = tempFolderForTest('config-');
    const file = join(dir, 'api-tokens');
    writeFileSync(file, 'token-one-0123456, token-two-0123456\r\ntoken-three-012345\n');
    expect(loadApiConfig({ API_TOKENS_FILE: file }).tokens).toEqual([
      'token-one-0123456',
      'token-two-0123456',
      'token-three-012345',
    ]);
    expect(loadApiConfig({ API_TOKENS: 'from-env-01234567', API_TOKENS_FILE: file }).tokens).toEqual([
      'from-env-01234567',
    ]);
    writeFileSync(file, 'short\n');
    expect(configError(() => loadApiConfig({ API_TOKENS_FILE: file })).message).toContain(
      'API_TOKENS_FILE has a token shorter than 16',
    );
    writeFileSync(file, 'Sup3r Secret\n');
    const bad = configError(() => loadApiConfig({ API_TOKENS_FILE: file }));
    expect(bad.toOneLine()).toMatch(/^CONFIG_INVALID: API_TOKENS_FILE has a token with a space/);
    expect(bad.toOneLine()).not.toContain('Sup3r');
    const pasted = configError(() => loadApiConfig({ API_TOKENS_FILE: 'Sup3rSecret' }));
    expect(pasted.message).toContain('API_TOKENS_FILE cannot be read (ENOENT)');
    expect(pasted.message).not.toContain('Sup3rSecret');
  });

  it('reads static S3 credentials from S3_ACCESS_KEY_ID_FILE and S3_SECRET_ACCESS_KEY_FILE, both or neither', () => {
    const dir = tempFolderForTest('config-');
    const keyId = join(dir, 'key-id');
    const secret = join(dir, 'secret');
    writeFileSync(keyId, 'AKIAEXAMPLE\n');
    writeFileSync(secret, ' Sup3rSecretKey/+= \n');
    expect(loadS3Config({}).credentials).toBeUndefined();
    expect(
      loadS3Config({ S3_ACCESS_KEY_ID_FILE: keyId, S3_SECRET_ACCESS_KEY_FILE: secret }).credentials,
    ).toEqual({ accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'Sup3rSecretKey/+=' });
    expect(configError(() => loadS3Config({ S3_ACCESS_KEY_ID_FILE: keyId })).toOneLine()).toMatch(
      /^CONFIG_INVALID: S3_ACCESS_KEY_ID_FILE is set without S3_SECRET_ACCESS_KEY_FILE/,
    );
    writeFileSync(secret, 'Sup3r\nSecretKey\n');
    const bad = configError(() =>
      loadS3Config({ S3_ACCESS_KEY_ID_FILE: keyId, S3_SECRET_ACCESS_KEY_FILE: secret }),
    );
    expect(bad.toOneLine()).toMatch(/^CONFIG_INVALID: S3_SECRET_ACCESS_KEY_FILE holds a line break/);
    expect(bad.toOneLine()).not.toContain('Sup3r');
  });

  it('takes S3_PUBLIC_ENDPOINT as the base URL presigned downloads are signed for', () => {
    expect(loadS3Config({}).publicEndpoint).toBeUndefined();
    expect(loadS3Config({ S3_PUBLIC_ENDPOINT: 'http://localhost:9000/' }).publicEndpoint).toBe(
      'http://localhost:9000',
    );
    expect(configError(() => loadS3Config({ S3_PUBLIC_ENDPOINT: 'localhost:9000' })).message).toContain(
      'S3_PUBLIC_ENDPOINT',
    );
  });

  it('reads EXPORT_DEST_ALLOW as a list of destinations and refuses a malformed one by name', () => {
    expect(loadExportConfig({}).destAllow).toEqual([]);
    expect(loadExportConfig({ EXPORT_DEST_ALLOW: ' /srv/a , s3://reports/shifts/,' }).destAllow).toEqual([
      '/srv/a',
      's3://reports/shifts/',
    ]);
    const error = configError(() => loadExportConfig({ EXPORT_DEST_ALLOW: '/srv/a,s3://Bad_Bucket/x' }));
    expect(error.toOneLine()).toMatch(/^CONFIG_INVALID: EXPORT_DEST_ALLOW is invalid: .*Bad_Bucket/);
    expect(configError(() => loadExportConfig({ EXPORT_DEST_ALLOW: '/srv/../etc' })).message).toContain(
      'EXPORT_DEST_ALLOW',
    );
  });

  it('keeps the dashboard read-only unless DASHBOARD_READ_ONLY is false', () => {
    expect(loadApiConfig({ API_TOKENS: 'dashboard-token-0123' }).dashboardReadOnly).toBe(true);
    expect(
      loadApiConfig({ API_TOKENS: 'dashboard-token-0123', DASHBOARD_READ_ONLY: 'false' }).dashboardReadOnly,
    ).toBe(false);
    expect(
      configError(() => loadApiConfig({ API_TOKENS: 'dashboard-token-0123', DASHBOARD_READ_ONLY: 'maybe' }))
        .message,
    ).toContain('DASHBOARD_READ_ONLY');
  });

  it('reads REPORT_LANG as one of the report languages, and refuses any other in one line naming it', () => {
    for (const language of REPORT_LANGUAGES)
      expect(loadExportConfig({ REPORT_LANG: language }).reportLang).toBe(language);
    expect(loadExportConfig({ REPORT_LANG: '' }).reportLang).toBe('en');
    for (const value of ['fr', 'pt_BR', 'RU', 'en\r\nX: 1']) {
      const error = configError(() => loadExportConfig({ REPORT_LANG: value }));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.toOneLine()).toBe(
        `CONFIG_INVALID: REPORT_LANG is invalid (${JSON.stringify(value)}): must be one of en, ru, de, pt-BR (the languages with a complete catalog)`,
      );
    }
  });

  it('parses formats and refuses unknown ones by name', () => {
    expect(parseFormats('xlsx, CSV', '--format')).toEqual(['csv', 'xlsx']);
    expect(parseFormats('parquet,csv,Parquet', '--format')).toEqual(['csv', 'parquet']);
    expect(() => parseFormats('pdf', '--format')).toThrow(/--format has an unknown format "pdf"/);
    expect(() => parseFormats(' , ', '--format')).toThrow(/--format names no format/);
  });

  it('refuses a WFM_BASE_URL with credentials, a query or a fragment at start, without the secret', () => {
    for (const url of [
      'https://svc:Sup3rSecret@wfm.example.com',
      'https://Sup3rSecret@wfm.example.com/api',
      'https://wfm.example.com/?access_token=Sup3rSecret',
      'https://wfm.example.com/api#Sup3rSecret',
    ]) {
      const error = configError(() => loadWfmConfig({ WFM_BASE_URL: url }));
      expect(error.toOneLine()).toMatch(/^CONFIG_INVALID: WFM_BASE_URL is invalid/);
      expect(error.toOneLine()).toMatch(/credentials|query/);
      expect(error.toOneLine()).not.toContain('Sup3rSecret');
    }
    expect(loadWfmConfig({ WFM_BASE_URL: 'https://wfm.example.com/api/' }).baseUrl).toBe(
      'https://wfm.example.com/api',
    );
  });

  it('refuses a WFM_TOKEN that an HTTP header cannot carry, naming the variable and not the token', () => {
    for (const token of [
      'Sup3rSecret\r\n',
      'Sup3r\nSecret',
      'Sup3r Secret',
      'Sup3rSecret\u0007',
      'Sup3rSécret',
    ]) {
      const error = configError(() => loadWfmConfig({ WFM_TOKEN: token }));
      expect(error.toOneLine()).toMatch(
        /^CONFIG_INVALID: WFM_TOKEN is invalid \(\*\*\*\): must be printable ASCII/,
      );
      expect(error.toOneLine()).not.toContain('Sup3r');
    }
    expect(loadWfmConfig({ WFM_TOKEN: 'eyJhbGciOi.J9-_~+/abc==' }).token).toBe('eyJhbGciOi.J9-_~+/abc==');
  });

  it('refuses a token file with a line break inside, but not around, the token', () => {
    const dir = tempFolderForTest('config-');
    const inside = join(dir, 'inside');
    writeFileSync(inside, 'Sup3r\r\nSecret\n');
    const error = configError(() => loadWfmConfig({ WFM_TOKEN_FILE: inside }));
    expect(error.message).toContain('WFM_TOKEN_FILE');
    expect(error.message).not.toContain('Sup3r');
    const around = join(dir, 'around');
    writeFileSync(around, '\r\n Sup3rSecret \r\n');
    expect(loadWfmConfig({ WFM_TOKEN_FILE: around }).token).toBe('Sup3rSecret');
    // A token pasted into WFM_TOKEN_FILE by mistake is not printed as a path that cannot be read.
    const pasted = configError(() => loadWfmConfig({ WFM_TOKEN_FILE: 'Sup3rSecret' }));
    expect(pasted.message).toContain('WFM_TOKEN_FILE cannot be read (ENOENT)');
    expect(pasted.message).not.toContain('Sup3rSecret');
  });

  it('refuses a REDIS_URL that ioredis could not parse, and hides its password', () => {
    for (const url of ['redis://default:Sup3rSecret@my host:6379', 'redis://:Sup3rSecret@host:notaport']) {
      const error = configError(() => loadQueueConfig({ REDIS_URL: url }));
      expect(error.toOneLine()).toMatch(/^CONFIG_INVALID: REDIS_URL is invalid \("redis:\/\/\*\*\*@/);
      expect(error.toOneLine()).not.toContain('Sup3rSecret');
    }
    expect(loadQueueConfig({ REDIS_URL: 'rediss://default:pw@redis.internal:6380/2' }).redis).toMatchObject({
      kind: 'single',
      url: 'rediss://default:pw@redis.internal:6380/2',
      tls: { ca: undefined },
    });
  });

  it('reads SMTP_URL with its scheme, port and login, and shows it without credentials', () => {
    const config = loadSmtpConfig({
      SMTP_URL: 'smtps://reports%40example.com:S3cr%3Ft@mail.example.com',
      SMTP_FROM: 'Reports <reports@example.com>',
    });
    expect(config.server).toEqual({
      host: 'mail.example.com',
      port: 465,
      secure: true,
      user: 'reports@example.com',
      password: 'S3cr?t',
      shown: 'smtps://mail.example.com:465',
    });
    expect(config.from).toBe('Reports <reports@example.com>');
    expect(config.maxAttachmentBytes).toBe(10 * 1024 * 1024);
    expect(loadSmtpConfig({}).server).toBeUndefined();
    expect(
      loadSmtpConfig({
        SMTP_URL: 'smtp://relay:2525',
        SMTP_FROM: 'a@b.example',
        SMTP_MAX_ATTACHMENT_MB: '3',
      }),
    ).toMatchObject({
      server: { port: 2525, secure: false, user: undefined },
      maxAttachmentBytes: 3 * 1024 * 1024,
    });
  });

  it('reads the SMTP password from SMTP_PASSWORD_FILE, and refuses it beside a password in the URL', () => {
    const dir = tempFolderForTest('smtp-config-');
    const file = join(dir, 'password');
    writeFileSync(file, ' Pa55word-from-file\n');
    const base = {
      SMTP_URL: 'smtp://mailer@relay.example.com',
      SMTP_FROM: 'a@b.example',
      SMTP_PASSWORD_FILE: file,
    };
    expect(loadSmtpConfig(base).server?.password).toBe('Pa55word-from-file');
    const both = configError(() =>
      loadSmtpConfig({ ...base, SMTP_URL: 'smtp://mailer:Other5ecret@relay.example.com' }),
    );
    expect(both.toOneLine()).toMatch(
      /^CONFIG_INVALID: SMTP_PASSWORD_FILE is set while SMTP_URL holds a password/,
    );
    expect(both.toOneLine()).not.toContain('Other5ecret');
    expect(
      configError(() => loadSmtpConfig({ ...base, SMTP_URL: 'smtp://relay.example.com' })).message,
    ).toMatch(/^SMTP_PASSWORD_FILE is set but SMTP_URL names no user/);
  });

  it('refuses a bad SMTP setting in one line naming it, never showing the password', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { SMTP_URL: 'https://u:Hidd3nPass@mail.example.com', SMTP_FROM: 'a@b.example' },
        /^SMTP_URL is invalid: it must start with smtp:\/\//,
      ],
      [
        { SMTP_URL: 'smtp://u:Hidd3nPass@mail.example.com/path', SMTP_FROM: 'a@b.example' },
        /^SMTP_URL is invalid: it must not have a path/,
      ],
      [
        { SMTP_URL: 'smtp://u:Hidd3nPass@mail example.com', SMTP_FROM: 'a@b.example' },
        /^SMTP_URL is invalid: it has a space/,
      ],
      [{ SMTP_URL: 'smtp://u:Hidd3nPass@mail.example.com' }, /^SMTP_FROM is required with SMTP_URL/],
      [
        { SMTP_URL: 'smtp://mail.example.com', SMTP_FROM: 'a@b.example\r\nBcc: x@evil.example' },
        /^SMTP_FROM is invalid/,
      ],
      [{ SMTP_URL: 'smtp://mail.example.com', SMTP_FROM: 'not an address' }, /^SMTP_FROM is invalid/],
      [{ SMTP_MAX_ATTACHMENT_MB: '0' }, /^SMTP_MAX_ATTACHMENT_MB is invalid/],
    ];
    for (const [env, message] of cases) {
      const error = configError(() => loadSmtpConfig(env));
      expect(error.message).toMatch(message);
      expect(error.toOneLine()).not.toContain('Hidd3nPass');
      expect(error.toOneLine()).not.toContain('\n');
    }
  });
});

describe('configuration errors never show a secret', () => {
  const MARKER = 'Mk7qPassw0rdZ';
  /** Malformed values that carry MARKER where secrets hide: URL userinfo, password= parameters. */
  const malformed = (name: string): string[] => [
    `redis://admin:${MARKER}@red is:6379/\u0007`,
    `https://admin:${MARKER}@wfm.example.com/v1?password=${MARKER}#\u0007`,
    `password=${MARKER}&access_token=${MARKER} \u0007`,
    `s3://AKIAEXAMPLE:${MARKER}@bucket-x/prefix\u0007`,
    `csv,https://u:${MARKER}@x`,
    // A secret-named variable is a secret as a whole, with no shape to recognise it by.
    ...(isSecretName(name) ? [`${MARKER}\r\nX-Injected: 1`, ` ${MARKER} ${MARKER}\u0007`] : []),
  ];
  const valid: Record<string, string> = {
    WFM_BASE_URL: 'https://wfm.example.com',
    WFM_TOKEN: 'wfm-token-ok',
    API_TOKENS: 'api-token-ok-0123456',
  };
  /** Every error the loaders raise for `env`, as the CLI loads them. */
  const errorsFor = (env: Record<string, string>): unknown[] => {
    const errors: unknown[] = [];
    for (const load of [
      () => requireUpstream(loadWfmConfig(env)),
      () => loadExportConfig(env),
      () => loadS3Config(env),
      () => loadQueueConfig(env),
      () => loadQueueTuning(env),
      () => loadScheduleConfig(env),
      () => loadApiConfig(env),
      () => loadNotifyConfig(env),
      () => loadSmtpConfig(env),
      () => loadLogLevel(env),
    ]) {
      try {
        load();
      } catch (error) {
        errors.push(error);
      }
    }
    return errors;
  };

  it.each(Object.keys(ENV_DOCS) as EnvName[])('%s: refused by name, the marker in no message', (name) => {
    let refused = 0;
    for (const value of malformed(name)) {
      const env = { ...valid, [name]: value };
      // A token file is read only when its variable is unset.
      if (name === 'WFM_TOKEN_FILE') delete env['WFM_TOKEN'];
      if (name === 'API_TOKENS_FILE') delete env['API_TOKENS'];
      for (const error of errorsFor(env)) {
        expect(error).toBeInstanceOf(ShiftExportError);
        const e = error as ShiftExportError;
        expect(e.code).toBe('CONFIG_INVALID');
        expect(e.toOneLine()).not.toContain('\n');
        expect(`${e.message} ${e.toOneLine()} ${JSON.stringify(e.details)}`).not.toContain(MARKER);
        if (e.message.startsWith(name)) refused++;
      }
    }
    expect(refused, `no malformed ${name} was refused by name`).toBeGreaterThan(0);
  });
});
