// A split export whose definition mails each division's managers writes each division's workbook
// once per language those managers read: shifts.xlsx in the definition's language, and
// shifts.<lang>.xlsx for every other language a manager who gets the mail reads, each listed in the
// manifest with its lang. The report is read once, and the workbooks of a division hold the same
// shift rows, byte for byte: the rows are rendered again for a language, never read again.

import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from 'wfm-sandbox';
import type { ExportResult, ExportScope } from '../../src/export/run-export.js';
import type { Manifest } from '../../src/render/manifest.js';
import { runConfiguredExport } from '../support/run-configured-export.js';
import { SANDBOX_READER_TOKEN, startTestSandbox } from '../support/sandbox.js';
import { zipEntries } from '../support/workbook-xml.js';

const PERIOD = { from: '2024-03-25', to: '2024-03-31' };

let sandbox: RunningSandbox;
let root: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  root = mkdtempSync(join(tmpdir(), 'division-languages-'));
});

afterAll(async () => {
  await sandbox?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

async function exportTo(dest: string, scope: Omit<ExportScope, 'period' | 'formats'>): Promise<ExportResult> {
  const env = { EXPORT_DEST: dest, WFM_BASE_URL: sandbox.url, WFM_TOKEN: SANDBOX_READER_TOKEN };
  return (await runConfiguredExport(env, PERIOD, ['csv', 'xlsx'], undefined, scope)).result;
}

interface Manager {
  readonly active: boolean;
  readonly inviteAccepted: boolean;
  readonly login: string;
  readonly lang?: string | null;
}

/**
 * The languages a division's managers read, by the rule the docs give: a manager who gets mail
 * (active, invitation accepted, a login that is an address) reads the catalog of their language
 * (ru_RU -> ru, pt_* -> pt-BR), and the definition's when there is none.
 */
function expectedLanguages(managers: readonly Manager[], primary: string): string[] {
  const catalogs: Record<string, string> = { en: 'en', ru: 'ru', de: 'de', pt: 'pt-BR' };
  const read = new Set([primary]);
  for (const m of managers) {
    if (!m.active || !m.inviteAccepted || !/^[^@\s]+@[^@\s]+\.[a-z]+$/i.test(m.login)) continue;
    const language = /^([a-z]{2})(?:[_-][A-Za-z]{2})?$/.exec(m.lang ?? '')?.[1];
    read.add((language === undefined ? undefined : catalogs[language]) ?? primary);
  }
  return [...read].sort();
}

/** A worksheet's rows after its header row: what a language must not change. */
function dataRows(xml: string): string {
  const start = xml.indexOf('<row r="2"');
  return start < 0 ? '' : xml.slice(start, xml.indexOf('</sheetData>'));
}

describe('a split export mailed to division managers', () => {
  it("writes each division's workbook in every language its managers read, the rows the same in each", async () => {
    const dest = join(root, 'languages');
    const before = sandbox.requestCount('wfm_timers');
    const result = await exportTo(dest, { split: 'division', lang: 'ru', readers: 'division-managers' });
    expect(sandbox.requestCount('wfm_timers') - before).toBe(result.upstream?.requests ?? NaN);
    const manifest = JSON.parse(await readFile(join(result.location, 'manifest.json'), 'utf8')) as Manifest;
    const response = await fetch(`${sandbox.url}/v1/orgstruct/divisions?fields=dirs`, {
      headers: { authorization: `Bearer ${SANDBOX_READER_TOKEN}` },
    });
    const divisions = (await response.json()) as { id: number; dirs?: Manager[] }[];
    let several = 0;
    for (const division of manifest.divisions ?? []) {
      const managers = divisions.find((d) => d.id === division.division_id)?.dirs ?? [];
      const workbooks = manifest.files.filter(
        (f) => f.division_id === division.division_id && f.name.endsWith('.xlsx'),
      );
      const languages = expectedLanguages(managers, 'ru');
      expect(workbooks.map((f) => f.lang).sort(), `division ${division.division_id}`).toEqual(languages);
      for (const file of workbooks)
        expect(file.name).toBe(file.lang === 'ru' ? 'shifts.xlsx' : `shifts.${file.lang}.xlsx`);
      if (workbooks.length < 2) continue;
      several++;
      const entries = await Promise.all(
        workbooks.map(async (f) => zipEntries(await readFile(join(result.location, f.path)))),
      );
      const [first, ...others] = entries;
      for (const [i, other] of others.entries()) {
        const lang = workbooks[i + 1]?.lang;
        expect(other.get('docProps/core.xml')?.toString()).toContain(`<dc:language>${lang}</dc:language>`);
        const sheets = [...first!.keys()].filter((name) => /^xl\/worksheets\/sheet\d+\.xml$/.test(name));
        const shiftsSheet = sheets.find((name) => dataRows(first!.get(name)!.toString()).includes('<c '));
        expect(shiftsSheet).toBeDefined();
        expect(dataRows(other.get(shiftsSheet!)!.toString())).toBe(
          dataRows(first!.get(shiftsSheet!)!.toString()),
        );
        expect(other.get('xl/workbook.xml')?.toString()).not.toBe(first!.get('xl/workbook.xml')?.toString());
      }
    }
    // The sandbox's managers read several languages: the test is void if no division has two.
    expect(several).toBeGreaterThan(0);
  });

  it('writes one workbook, in the definition language, when the split is not mailed to managers', async () => {
    const result = await exportTo(join(root, 'one'), { split: 'division', lang: 'de' });
    const manifest = JSON.parse(await readFile(join(result.location, 'manifest.json'), 'utf8')) as Manifest;
    const workbooks = manifest.files.filter((f) => f.name.endsWith('.xlsx'));
    expect(workbooks.length).toBe(manifest.divisions?.length);
    for (const f of workbooks) expect([f.name, f.lang]).toEqual(['shifts.xlsx', 'de']);
  });
});
