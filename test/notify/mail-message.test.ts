import { describe, expect, it } from 'vitest';
import { REPORT_LANGUAGES } from '../../src/i18n/report-language.js';
import { composeMessage, type MailManifest, type MessageFacts } from '../../src/notify/mail-message.js';

const HOSTILE_REGION = '<script>alert(1)</script>\r\nBcc: x@evil.example';
const RTL = 'Shop\u202Egpj.exe\u202C';

const manifest: MailManifest = {
  export_id: 'exp-7',
  period: { from: '2026-11-16', to: '2026-11-22' },
  counts: { exported: 21, rejected: 2 },
  statistics: { start_match_rate: 0.9, finish_match_rate: 0.8, hours: 168, auto_finished_rate: 0.05 },
  files: [],
  match_rate_threshold: 0.8,
  divisions: [
    {
      division_id: 3,
      division_name: 'North "&" <i>',
      shifts: 21,
      changed: true,
      statistics: {
        shifts: 21,
        hours: 168.5,
        start_match_rate: 0.75,
        finish_match_rate: 0.8,
        auto_finished_rate: 0.05,
      },
      region_rates: [
        {
          region_id: 1,
          region_name: HOSTILE_REGION,
          shifts: 1,
          start_match_rate: 0.5,
          finish_match_rate: null,
        },
        { region_id: 2, region_name: 'East', shifts: 20, start_match_rate: 0.95, finish_match_rate: 0.9 },
      ],
      lowest_shops: [
        {
          shop_id: 9,
          shop_sap: '0009',
          shop_name: RTL,
          region_name: 'East',
          shifts: 5,
          start_match_rate: 0.4,
        },
      ],
    },
  ],
};

const facts = (language: MessageFacts['language'], extra: Partial<MessageFacts> = {}): MessageFacts => ({
  definition: 'weekly',
  manifest,
  division: manifest.divisions![0]!,
  files: [],
  language,
  ...extra,
});

describe('composeMessage', () => {
  it.each(REPORT_LANGUAGES)('writes both parts in %s and says so in <html lang>', (language) => {
    const message = composeMessage(facts(language));
    expect(message.language).toBe(language);
    expect(message.html).toContain(`<html lang="${language}"`);
    expect(message.text.split('\n')[0]).toMatch(/^weekly: /);
  });

  it('counts shifts with each language’s plural forms', () => {
    expect(composeMessage(facts('ru')).subject).toContain('21 смена');
    expect(composeMessage(facts('de')).subject).toContain('21 Schichten');
    expect(composeMessage(facts('pt-BR')).subject).toContain('21 turnos');
    expect(composeMessage(facts('en')).text).toContain(', 1 shift\n');
    expect(composeMessage(facts('en')).text).toContain(', 20 shifts\n');
  });

  it('ranks the regions by start match rate, highest first, and marks the one under the threshold in words', () => {
    const { text } = composeMessage(facts('en'));
    const east = text.indexOf('1. East: 95.0%');
    const hostile = text.indexOf('2. <script>alert(1)</script> Bcc: x@evil.example: 50.0% — below, 1 shift');
    expect(east).toBeGreaterThan(0);
    expect(hostile).toBeGreaterThan(east);
    expect(text).toContain('1 of 2 below the threshold of 80.0%');
  });

  it('says there is nothing to compare with on the first export, and the change in points against a previous period', () => {
    expect(composeMessage(facts('en')).text).toContain('there is nothing to compare with yet');
    const previous = {
      period: { from: '2026-11-09', to: '2026-11-15' },
      manifest: {
        ...manifest,
        divisions: manifest.divisions!.map((d) => ({
          ...d,
          statistics: { ...d.statistics, start_match_rate: 0.7 },
          region_rates: [
            { region_id: 2, region_name: 'East', shifts: 3, start_match_rate: 0.96, finish_match_rate: 1 },
          ],
        })),
      },
    };
    const { text, html } = composeMessage(facts('de', { previous }));
    expect(text).toContain('Standorttreffer bei Beginn: 75,0\u00a0% (+5,0 Pp.)');
    expect(text).toContain('1. East: 95,0\u00a0% (-1,0 Pp.)');
    expect(html).toContain('+5,0 Pp.');
  });

  it('says the previous period has no figures when its manifest lacks this division', () => {
    const previous = {
      period: { from: '2026-11-09', to: '2026-11-15' },
      manifest: { ...manifest, divisions: [] },
    };
    expect(composeMessage(facts('en', { previous })).text).toContain('has no figures to compare with');
  });

  it('escapes hostile names in the HTML and takes line breaks and bidi controls out of every line', () => {
    const { html, text, subject } = composeMessage(facts('en'));
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<i>');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62; Bcc: x@evil.example');
    expect(html).toContain('North &#34;&#38;&#34; &#60;i&#62;');
    for (const part of [html, text, subject]) expect(part).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(text).not.toMatch(/\r/);
    expect(text).not.toMatch(/\nBcc:/);
    expect(subject).not.toMatch(/[\r\n]/);
  });

  it('loads nothing from outside: no remote reference, image, script or stylesheet', () => {
    for (const language of REPORT_LANGUAGES) {
      const { html } = composeMessage(facts(language));
      expect(html).not.toMatch(/https?:/i);
      expect(html).not.toMatch(/\ssrc=/i);
      expect(html).not.toMatch(/<(img|script|link|style|iframe)\b/i);
      expect(html).not.toMatch(/url\(/i);
    }
  });

  it('gives every text a colour on a background of its own, for dark-mode clients', () => {
    const { html } = composeMessage(facts('en'));
    const styled = [...html.matchAll(/<td[^>]*style="([^"]*)"/g)].map((m) => m[1]!);
    const withText = styled.filter((s) => s.includes('font-size') && !s.includes('font-size:0'));
    expect(withText.length).toBeGreaterThan(10);
    for (const style of withText) {
      expect(style).toMatch(/(^|;)color:#/);
      expect(style).toMatch(/background-color:#/);
    }
  });
});
