import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatProblem, ExportsFileInvalidError } from '../../src/definitions/definition-problem.js';
import { DIVISION_MANAGERS, findDefinition } from '../../src/definitions/export-definition.js';
import {
  loadExportDefinitions,
  parseExportDefinitions,
  requireExportDefinitions,
  type DefinitionSettings,
} from '../../src/definitions/load-export-definitions.js';
import type { ReportLanguage } from '../../src/i18n/report-language.js';

let root: string;
let exportDest: string;
let allowed: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'definitions-'));
  exportDest = join(root, 'exports');
  allowed = join(root, 'allowed');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function settings(
  overrides: { file?: string; maxDays?: number; enabled?: boolean; reportLang?: ReportLanguage } = {},
): DefinitionSettings {
  return {
    schedule: {
      exportsFile: overrides.file,
      enabled: overrides.enabled ?? true,
      cron: '0 3 * * *',
      tz: 'Asia/Kolkata',
      lookbackDays: 2,
    },
    exportConfig: {
      dest: exportDest,
      destAllow: [allowed],
      formats: ['csv', 'xlsx'],
      maxDays: overrides.maxDays ?? 31,
      reportLang: overrides.reportLang ?? 'en',
    },
  };
}

/** The problem lines `exports check` prints for `text` as exports.yaml; [] when it is valid. */
async function problemLines(text: string, overrides: { maxDays?: number } = {}): Promise<string[]> {
  const result = await parseExportDefinitions(text, 'exports.yaml', settings(overrides));
  return result.ok ? [] : result.problems.map(formatProblem);
}

/** A file of lines, so that each case reads as the YAML it is. */
const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;

async function loaded(text: string) {
  const result = await parseExportDefinitions(text, 'exports.yaml', settings());
  if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
  return result.definitions;
}

describe('loading export definitions', () => {
  it('makes the one nightly definition of the legacy settings when EXPORTS_FILE is not set', async () => {
    const result = await loadExportDefinitions(settings());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.definitions.source).toEqual({ kind: 'settings' });
    expect(result.definitions.definitions).toEqual([
      {
        name: 'nightly',
        schedule: { cron: '0 3 * * *', tz: 'Asia/Kolkata' },
        period: { kind: 'yesterday' },
        lookbackDays: 2,
        formats: ['csv', 'xlsx'],
        lang: 'en',
        // EXPORT_DEST itself, not EXPORT_DEST/nightly: the folders stay where they were.
        dest: exportDest,
        destination: { kind: 'local', dir: exportDest },
        destIsExportDest: true,
        filter: undefined,
        split: undefined,
        deliver: undefined,
      },
    ]);
    const disabled = await loadExportDefinitions(settings({ enabled: false }));
    expect(disabled.ok && disabled.definitions.definitions[0]?.schedule).toBeUndefined();
    const russian = await loadExportDefinitions(settings({ reportLang: 'ru' }));
    expect(russian.ok && russian.definitions.definitions[0]?.lang).toBe('ru');
  });

  it('refuses a NIGHTLY_CRON that cron-parser refuses, naming the variable', async () => {
    const legacy = settings();
    const result = await loadExportDefinitions({
      ...legacy,
      schedule: { ...legacy.schedule, cron: '0 99 * * *' },
    });
    expect(result.ok ? [] : result.problems.map(formatProblem)).toEqual([
      'NIGHTLY_CRON: "0 99 * * *" is not a cron pattern: Constraint error, got value 99 expected range 0-23',
    ]);
  });

  it('applies the defaults: EXPORT_FORMATS, REPORT_LANG, <EXPORT_DEST>/<name>, attach [xlsx], when always, no look-back', async () => {
    const set = await loaded(
      yaml(
        'exports:',
        '  - name: weekly',
        '    period: last-week',
        '    split: division',
        '    deliver:',
        '      email: { to: division-managers }',
        '      webhook: https://hooks.example.com/T000/B000/secret',
      ),
    );
    expect(set.source).toEqual({ kind: 'file', file: 'exports.yaml' });
    expect(findDefinition(set, 'weekly')).toEqual({
      name: 'weekly',
      schedule: undefined,
      period: { kind: 'last-week' },
      lookbackDays: 0,
      formats: ['csv', 'xlsx'],
      lang: 'en',
      dest: `${exportDest}/weekly`,
      destination: { kind: 'local', dir: join(exportDest, 'weekly') },
      destIsExportDest: false,
      filter: undefined,
      split: 'division',
      deliver: {
        email: { to: DIVISION_MANAGERS, cc: [], attach: ['xlsx'], when: 'always', lang: 'en' },
        webhooks: ['https://hooks.example.com/T000/B000/secret'],
      },
    });
    expect(Object.isFrozen(findDefinition(set, 'weekly'))).toBe(true);
  });

  it('reads every field of a definition, its lists de-duplicated and in order', async () => {
    const result = await parseExportDefinitions(
      yaml(
        'exports:',
        '  - name: nightly-north',
        '    schedule: { cron: "30 2 * * *", tz: Europe/Berlin }',
        '    period: yesterday',
        '    lookback_days: 3',
        '    formats: [parquet, csv, csv]',
        '    lang: pt-BR',
        '    dest: s3://bucket-x/reports/north',
        '    filter: { divisions: [3, 1, 3], regions: [7], shops: [71, 70] }',
        '    deliver:',
        '      email:',
        '        to: [a@example.com, b@example.com]',
        '        cc: [c@example.com]',
        '        attach: [csv]',
        '        when: changed',
        '      webhook: [https://a.example.com/x, http://b.example.com/y]',
      ),
      'exports.yaml',
      { ...settings(), exportConfig: { ...settings().exportConfig, destAllow: ['s3://bucket-x/reports'] } },
    );
    if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
    expect(result.definitions.definitions).toEqual([
      {
        name: 'nightly-north',
        schedule: { cron: '30 2 * * *', tz: 'Europe/Berlin' },
        period: { kind: 'yesterday' },
        lookbackDays: 3,
        formats: ['csv', 'parquet'],
        lang: 'pt-BR',
        dest: 's3://bucket-x/reports/north',
        destination: { kind: 's3', bucket: 'bucket-x', prefix: 'reports/north' },
        destIsExportDest: false,
        filter: { divisions: [1, 3], regions: [7], shops: [70, 71] },
        split: undefined,
        deliver: {
          email: {
            to: ['a@example.com', 'b@example.com'],
            cc: ['c@example.com'],
            attach: ['csv'],
            when: 'changed',
            lang: 'pt-BR',
          },
          webhooks: ['https://a.example.com/x', 'http://b.example.com/y'],
        },
      },
    ]);
  });

  it("gives a definition without lang REPORT_LANG, and one with lang its own, its e-mail's too", async () => {
    const text = yaml(
      'exports:',
      '  - name: plain',
      '    period: last-week',
      '  - name: russian',
      '    period: last-week',
      '    lang: ru',
      '    split: division',
      '    deliver: { email: { to: division-managers } }',
    );
    const result = await parseExportDefinitions(text, 'exports.yaml', settings({ reportLang: 'de' }));
    if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
    expect(result.definitions.definitions.map((d) => [d.name, d.lang, d.deliver?.email?.lang])).toEqual([
      ['plain', 'de', undefined],
      ['russian', 'ru', 'ru'],
    ]);
  });

  it('accepts the example file, docs/examples/exports.yaml', async () => {
    const file = new URL('../../docs/examples/exports.yaml', import.meta.url).pathname;
    const result = await loadExportDefinitions({
      ...settings({ file }),
      exportConfig: { ...settings().exportConfig, dest: './exports' },
    });
    if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
    const names = result.definitions.definitions.map((d) => [d.name, d.period.kind, d.split ?? '-']);
    expect(names).toEqual([
      ['nightly', 'yesterday', '-'],
      ['weekly-by-division', 'last-week', 'division'],
      ['monthly', 'last-month', '-'],
    ]);
    expect(findDefinition(result.definitions, 'weekly-by-division')?.deliver?.email?.to).toBe(
      DIVISION_MANAGERS,
    );
  });
});

describe('a bad definitions file', () => {
  it('is missing: FILE: what is wrong', async () => {
    const file = join(root, 'missing.yaml');
    const result = await loadExportDefinitions(settings({ file }));
    expect(result.ok ? [] : result.problems.map(formatProblem)).toEqual([
      `${file}: cannot be read: there is no such file (ENOENT)`,
    ]);
  });

  it('cannot be read: a folder, a path through a file, bytes that are not UTF-8', async () => {
    const lines = async (file: string): Promise<string[]> => {
      const result = await loadExportDefinitions(settings({ file }));
      return result.ok ? [] : result.problems.map(formatProblem);
    };
    expect(await lines(root)).toEqual([
      `${root}: is a folder, not a file (EXPORTS_FILE names the YAML file)`,
    ]);
    const plain = join(root, 'plain.txt');
    await writeFile(plain, 'x');
    expect(await lines(join(plain, 'exports.yaml'))).toEqual([
      `${join(plain, 'exports.yaml')}: cannot be read (ENOTDIR)`,
    ]);
    const latin1 = join(root, 'latin1.yaml');
    await writeFile(latin1, Buffer.from('exports:\n  - name: m\xfcnchen\n', 'latin1'));
    expect(await lines(latin1)).toEqual([`${latin1}: is not UTF-8 text`]);
    const huge = join(root, 'huge.yaml');
    await writeFile(huge, `# ${'x'.repeat(1024 * 1024)}\n`);
    expect(await lines(huge)).toEqual([
      `${huge}: is 1048579 bytes, more than a definitions file may be (1048576)`,
    ]);
  });

  it.skipIf(process.getuid?.() === 0)('cannot be read: permission denied', async () => {
    const file = join(root, 'secret.yaml');
    await writeFile(file, 'exports: []\n');
    await chmod(file, 0o000);
    const result = await loadExportDefinitions(settings({ file }));
    expect(result.ok ? [] : result.problems.map(formatProblem)).toEqual([
      `${file}: cannot be read: permission denied (EACCES)`,
    ]);
  });

  it('is not YAML: the parser’s first complaint on each line, at its place', async () => {
    expect(await problemLines(yaml('exports:', '  - name: a', '    name: b'))).toEqual([
      'exports.yaml:3:5: invalid YAML: Map keys must be unique',
    ]);
    expect(await problemLines(yaml('exports: [', ''))).toEqual([
      'exports.yaml:3:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
    expect(
      await problemLines(
        yaml(
          'exports:',
          '  - name: a',
          '    period: yesterday',
          '    schedule:',
          '      cron: * * * * *',
          '      tz: UTC',
        ),
      ),
    ).toEqual([
      'exports.yaml:5:13: invalid YAML: Alias cannot be an empty string (quote a value that starts with *, e.g. cron: "* * * * *")',
    ]);
    expect(await problemLines(yaml('exports:', '  - name: a', '    period: *p'))).toEqual([
      'exports.yaml:3:13: invalid YAML: *p is an alias without an anchor (quote a value that starts with *, e.g. cron: "* * * * *")',
    ]);
  });

  it('is empty, or not a mapping with exports:', async () => {
    expect(await problemLines('')).toEqual([
      'exports.yaml:1:1: is empty: expected exports: with a list of export definitions',
    ]);
    expect(await problemLines(yaml('- name: a'))).toEqual([
      'exports.yaml:1:1: must be a mapping (key: value), not a list',
    ]);
    expect(await problemLines(yaml('exports:', 'export: []'))).toEqual([
      'exports.yaml:1:1: exports: must be a list, not empty',
      'exports.yaml:2:1: export: unknown key (expected exports)',
    ]);
  });

  it('breaks the schema: an unknown key, a missing field, a value of the wrong kind', async () => {
    expect(
      await problemLines(
        yaml(
          'exports:',
          '  - name: nightly',
          '    period: yesterday',
          '    shedule: { cron: "0 3 * * *", tz: UTC }',
          '  - name: weekly',
          '    schedule: { cron: "0 6 * * 1" }',
          '  - name: 42',
          '    period: last-week',
          '    lookback_days: -1',
          '    filter: { divisions: [1.5], shops: [] }',
          '    split: region',
          '    deliver: { email: { to: someone@example.com, when: sometimes } }',
          '  - name: Monthly_Report',
          '    period: last-fortnight',
          '    deliver: {}',
          '    filter: {}',
        ),
      ),
    ).toEqual([
      'exports.yaml:4:5: exports[0].shedule: unknown key (expected name, schedule, period, lookback_days, formats, lang, dest, filter, split, deliver)',
      'exports.yaml:5:5: exports[1].period: is required',
      'exports.yaml:6:15: exports[1].schedule.tz: is required',
      'exports.yaml:7:11: exports[2].name: must be a text, not a number',
      'exports.yaml:9:20: exports[2].lookback_days: must be a whole number from 0 to 60',
      'exports.yaml:10:27: exports[2].filter.divisions[0]: must be a whole-number id',
      'exports.yaml:10:40: exports[2].filter.shops: must list at least one id',
      'exports.yaml:11:12: exports[2].split: must be division (the one split there is)',
      'exports.yaml:12:29: exports[2].deliver.email.to: must be division-managers or a list of e-mail addresses',
      'exports.yaml:12:56: exports[2].deliver.email.when: must be always or changed',
      'exports.yaml:13:11: exports[3].name: must be 1 to 64 characters of a-z, 0-9 and "-"',
      'exports.yaml:14:13: exports[3].period: "last-fortnight" is not a period rule (expected yesterday, last-week, last-month, month-to-date or last-N-days such as last-7-days)',
      'exports.yaml:15:14: exports[3].deliver: names neither email nor webhook',
      'exports.yaml:16:13: exports[3].filter: names no divisions, regions or shops',
    ]);
  });

  it('refuses an address that delivery would not send to: a display name, a line break', async () => {
    expect(
      await problemLines(
        yaml(
          'exports:',
          '  - name: monthly',
          '    period: last-month',
          '    deliver:',
          '      email:',
          '        to: ["Bob <bob@example.com>"]',
          '        cc: ["a@b.example\\r\\nBcc: x@evil.example"]',
        ),
      ),
    ).toEqual([
      'exports.yaml:6:14: exports[0].deliver.email.to[0]: "Bob <bob@example.com>" is not an e-mail address (expected a plain name@domain)',
      'exports.yaml:7:14: exports[0].deliver.email.cc[0]: "a@b.example\\r\\nBcc: x@evil.example" is not an e-mail address (expected a plain name@domain)',
    ]);
  });

  it('has a bad cron pattern', async () => {
    expect(
      await problemLines(
        yaml(
          'exports:',
          '  - name: nightly',
          '    period: yesterday',
          '    schedule: { cron: "0 99 * * *", tz: UTC }',
        ),
      ),
    ).toEqual([
      'exports.yaml:4:23: exports[0].schedule.cron: "0 99 * * *" is not a cron pattern: Constraint error, got value 99 expected range 0-23',
    ]);
  });

  it('has a lang that is not a report language, as the upstream or a person might write one', async () => {
    expect(
      await problemLines(
        yaml(
          'exports:',
          '  - name: a',
          '    period: yesterday',
          '    lang: fr',
          '  - name: b',
          '    period: yesterday',
          '    lang: pt_BR',
          '  - name: c',
          '    period: yesterday',
          '    lang: [ru]',
          '  - name: d',
          '    period: yesterday',
          '    lang: "en\\r\\nBcc: x@evil.example"',
        ),
      ),
    ).toEqual([
      'exports.yaml:4:11: exports[0].lang: "fr" is not a report language (expected en, ru, de, pt-BR)',
      'exports.yaml:7:11: exports[1].lang: "pt_BR" is not a report language (expected en, ru, de, pt-BR)',
      'exports.yaml:10:11: exports[2].lang: ["ru"] is not a report language (expected en, ru, de, pt-BR)',
      'exports.yaml:13:11: exports[3].lang: "en\\r\\nBcc: x@evil.example" is not a report language (expected en, ru, de, pt-BR)',
    ]);
  });

  it('has an unknown time zone', async () => {
    expect(
      await problemLines(
        yaml(
          'exports:',
          '  - name: nightly',
          '    period: yesterday',
          '    schedule:',
          '      cron: "0 3 * * *"',
          '      tz: Europe/Berln',
        ),
      ),
    ).toEqual([
      'exports.yaml:6:11: exports[0].schedule.tz: "Europe/Berln" is not an IANA time zone such as Europe/Berlin',
    ]);
  });

  it('has a dest outside EXPORT_DEST and EXPORT_DEST_ALLOW', async () => {
    const outside = join(root, 'elsewhere');
    expect(
      await problemLines(
        yaml(
          'exports:',
          '  - name: inside',
          '    period: yesterday',
          `    dest: ${join(allowed, 'team')}`,
          '  - name: outside',
          '    period: yesterday',
          `    dest: ${outside}`,
        ),
      ),
    ).toEqual([
      `exports.yaml:7:11: exports[1].dest: destination "${outside}" is not allowed: it is outside EXPORT_DEST and EXPORT_DEST_ALLOW (${exportDest}, ${allowed})`,
    ]);
    expect(
      await problemLines(yaml('exports:', '  - name: up', '    period: yesterday', '    dest: ../up')),
    ).toEqual([
      'exports.yaml:4:11: exports[0].dest: destination "../up" is refused: it has a ".." segment (give the folder without "..")',
    ]);
  });

  it('has two definitions that share a dest, written or by default', async () => {
    expect(
      await problemLines(
        yaml(
          'exports:',
          '  - name: weekly',
          '    period: last-week',
          '  - name: weekly-copy',
          '    period: last-week',
          `    dest: ${exportDest}/weekly/`,
          '  - name: a',
          '    period: yesterday',
          `    dest: ${allowed}`,
          '  - name: b',
          '    period: yesterday',
          `    dest: ${allowed}`,
        ),
      ),
    ).toEqual([
      `exports.yaml:6:11: exports[1].dest: "${exportDest}/weekly/" is also the dest of exports[0] (weekly): each definition needs its own`,
      `exports.yaml:12:11: exports[3].dest: "${allowed}" is also the dest of exports[2] (a): each definition needs its own`,
    ]);
  });

  it('sends to division-managers without split: division', async () => {
    expect(
      await problemLines(
        yaml(
          'exports:',
          '  - name: weekly',
          '    period: last-week',
          '    deliver:',
          '      email:',
          '        to: division-managers',
        ),
      ),
    ).toEqual([
      "exports.yaml:6:13: exports[0].deliver.email.to: division-managers needs split: division (each division's files go to its own managers)",
    ]);
  });

  it('names an unknown format, or attaches one it does not write', async () => {
    expect(
      await problemLines(
        yaml('exports:', '  - name: weekly', '    period: last-week', '    formats: [csv, pdf]'),
      ),
    ).toEqual([
      'exports.yaml:4:20: exports[0].formats[1]: unknown format "pdf" (expected csv, xlsx, parquet)',
    ]);
    expect(
      await problemLines(
        yaml(
          'exports:',
          '  - name: weekly',
          '    period: last-week',
          '    formats: [csv]',
          '    deliver: { email: { to: [a@example.com] } }',
        ),
      ),
    ).toEqual([
      'exports.yaml:5:23: exports[0].deliver.email.attach: is xlsx by default, which is not among the formats written (csv): set attach',
    ]);
    expect(
      await problemLines(
        yaml(
          'exports:',
          '  - name: weekly',
          '    period: last-week',
          '    formats: [csv]',
          '    deliver: { email: { to: [a@example.com], attach: [parquet, csv] } }',
        ),
      ),
    ).toEqual([
      'exports.yaml:5:55: exports[0].deliver.email.attach[0]: parquet is not among the formats written (csv)',
    ]);
  });

  it('has a period longer than EXPORT_MAX_DAYS', async () => {
    expect(await problemLines(yaml('exports:', '  - name: quarter', '    period: last-92-days'))).toEqual([
      'exports.yaml:3:13: exports[0].period: last-92-days covers 92 days, more than EXPORT_MAX_DAYS (31)',
    ]);
    expect(
      await problemLines(yaml('exports:', '  - name: monthly', '    period: last-month'), { maxDays: 28 }),
    ).toEqual([
      'exports.yaml:3:13: exports[0].period: last-month covers up to 31 days, more than EXPORT_MAX_DAYS (28)',
    ]);
  });

  it('names two definitions alike', async () => {
    expect(
      await problemLines(
        yaml(
          'exports:',
          '  - name: nightly',
          '    period: yesterday',
          '  - name: weekly',
          '    period: last-week',
          '  - name: nightly',
          '    period: last-week',
        ),
      ),
    ).toEqual(['exports.yaml:6:11: exports[2].name: "nightly" is already the name of exports[0] (line 2)']);
  });

  it('gives lookback_days to a period other than yesterday', async () => {
    expect(
      await problemLines(
        yaml('exports:', '  - name: weekly', '    period: last-week', '    lookback_days: 2'),
      ),
    ).toEqual([
      'exports.yaml:4:20: exports[0].lookback_days: only a period of yesterday looks back (this one is last-week)',
    ]);
  });

  it('never quotes a webhook URL, whose path may be a secret', async () => {
    const lines = await problemLines(
      yaml(
        'exports:',
        '  - name: a',
        '    period: yesterday',
        '    deliver: { webhook: "ftp://u:pw@host/T0/secret" }',
      ),
    );
    expect(lines).toEqual([
      'exports.yaml:4:25: exports[0].deliver.webhook: must be an http:// or https:// URL, or a list of them',
    ]);
  });

  it('stops a process that needs the definitions with one error holding every problem', async () => {
    const file = join(root, 'exports.yaml');
    await mkdir(root, { recursive: true });
    await writeFile(file, yaml('exports:', '  - name: a', '    period: weekly', '  - name: b'));
    const error = await requireExportDefinitions(settings({ file })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExportsFileInvalidError);
    const invalid = error as ExportsFileInvalidError;
    expect(invalid.code).toBe('EXPORTS_FILE_INVALID');
    expect(invalid.retryable).toBe(false);
    expect(invalid.problems).toHaveLength(2);
    expect(invalid.message).toBe(
      `${file}:3:13: exports[0].period: "weekly" is not a period rule (expected yesterday, last-week, last-month, month-to-date or last-N-days such as last-7-days) (and 1 more: shift-export exports check)`,
    );
  });
});
