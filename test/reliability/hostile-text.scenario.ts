// Hostile text: an export through the sandbox whose rows carry characters XML 1.0
// cannot hold (U+FFFE, U+FFFF, unpaired surrogates, NUL and other controls) and formulas behind
// leading blanks (the `hostileTextRate` fault), and a division renamed through the divisions API
// to such a name. It must publish with no row lost; shifts.csv must hold no such character and
// guard every formula-like cell; the rows whose text was changed must say so; the workbook must be
// well-formed XML in every part and show every row, with the same text as the CSV, in openpyxl and
// LibreOffice (where installed: .ci/run installs both).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SHIFT_COLUMNS } from '../../src/domain/shift-columns.js';
import type { RunningSandbox } from 'wfm-sandbox';
import { xmlPartProblems } from '../support/workbook-xml.js';
import {
  libreOfficeShiftsSheet,
  OPENPYXL_PYTHON,
  openpyxlSheets,
  SOFFICE,
} from '../support/workbook-readers.js';
import { publishedOutcome, runCliExport } from './support/cli-export.js';
import { WFM_SECRET_TOKEN } from './support/evidence.js';
import { expectedIds } from './support/expected-rows.js';
import { publishedFolder } from './support/exported-ids.js';
import { scenario } from './support/scenario.js';
import { sourceShape, startScenarioSandbox } from './support/scenario-sandbox.js';

const GROUP = 'security';
const FROM = '2024-03-25';
const TO = '2024-03-31';
const SHAPE = sourceShape(20_000);
const HOSTILE_RATE = 0.05;
const DIVISION_NAME = 'Division \uFFFE with \u0000 a hostile \uD800 name';
const DIVISION_EXTERNAL_ID = 'EXT\u001B-\uFFFF';

// Written here on their own terms, not imported from the code under test.
// eslint-disable-next-line no-control-regex
const UNHOLDABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]|\p{Cs}/u;
const BLANKS = /^[\s\u0085\p{Cc}\p{Cf}]*/u;
const TRIGGERS = new Set(['=', '+', '-', '@', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20', '\t', '\r', '\0']);

/** Whether a spreadsheet that trims leading blanks could read `text` as a formula. */
function formulaLike(text: string): boolean {
  const blanks = BLANKS.exec(text)?.[0] ?? '';
  return [...blanks].some((c) => TRIGGERS.has(c)) || TRIGGERS.has(text.charAt(blanks.length));
}

const TEXT_COLUMNS = SHIFT_COLUMNS.filter((c) => c.kind === 'text').map((c) => c.name);
const COMMENT = SHIFT_COLUMNS.findIndex((c) => c.name === 'comment');
const ID = SHIFT_COLUMNS.findIndex((c) => c.name === 'shift_id');

let sandbox: RunningSandbox;
let expected: Set<number>;

beforeAll(async () => {
  sandbox = await startScenarioSandbox(SHAPE, { faults: { wfm_timers: { hostileTextRate: HOSTILE_RATE } } });
  expected = expectedIds(SHAPE, FROM, TO);
});

afterAll(async () => {
  await sandbox?.close();
});

async function renameFirstDivision(): Promise<number> {
  const headers = { authorization: `Bearer ${WFM_SECRET_TOKEN}`, 'content-type': 'application/json' };
  const list = (await (await fetch(`${sandbox.url}/v1/orgstruct/divisions`, { headers })).json()) as {
    id: number;
  }[];
  const id = list[0]?.id;
  if (id === undefined) throw new Error('the sandbox lists no division');
  const put = await fetch(`${sandbox.url}/v1/orgstruct/divisions/${id}`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({ name: DIVISION_NAME, externalId: DIVISION_EXTERNAL_ID, active: true }),
  });
  if (put.status !== 200) throw new Error(`renaming division ${id}: ${put.status} ${await put.text()}`);
  return id;
}

/** The text a CSV cell stands for: without the guard's `'` (the workbook's text cells are inert). */
function unguarded(cell: string): string {
  return cell.startsWith("'") && formulaLike(cell.slice(1)) ? cell.slice(1) : cell;
}

/** As a workbook holds the text: XML reads CR LF and a lone CR as LF. */
function asInWorkbook(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

describe('hostile text', () => {
  it('publishes every row with text a spreadsheet can hold, formulas guarded, a valid workbook', () =>
    scenario(GROUP, 'hostile text (XML-invalid characters, formulas behind blanks)', async () => {
      const divisionId = await renameFirstDivision();
      const result = await runCliExport('hostile-text', {
        baseUrl: sandbox.url,
        from: FROM,
        to: TO,
        formats: 'csv,xlsx',
        timeoutMs: 180_000,
      });
      const rows = await publishedOutcome(result, FROM, TO, expected);
      const folder = publishedFolder(result.dest, FROM, TO) ?? '';
      const wrong: string[] = [];

      const csv = parse(readFileSync(join(folder, 'shifts.csv'), 'utf8'), {
        bom: true,
        columns: true,
      }) as Record<string, string>[];
      const comments = new Map<string, string>();
      let replaced = 0;
      let guarded = 0;
      let behindBlanks = 0;
      let renamed = 0;
      for (const row of csv) {
        const id = row['shift_id'] ?? '';
        let hasReplacement = false;
        for (const column of TEXT_COLUMNS) {
          const cell = row[column] ?? '';
          if (UNHOLDABLE.test(cell)) wrong.push(`CSV ${column} of ${id} holds an unholdable character`);
          if (formulaLike(cell)) wrong.push(`CSV ${column} of ${id} is an unguarded formula`);
          if (cell !== unguarded(cell)) {
            guarded++;
            if (BLANKS.exec(cell.slice(1))?.[0] !== '') behindBlanks++;
          }
          if (cell.includes('\uFFFD')) hasReplacement = true;
        }
        const flagged = (row['quality_flags'] ?? '').split(';').includes('text_replaced');
        if (flagged !== hasReplacement)
          wrong.push(`shift ${id}: flagged ${flagged}, U+FFFD ${hasReplacement}`);
        if (flagged) replaced++;
        if (row['division_id'] === String(divisionId)) {
          renamed++;
          if (row['division_name'] !== DIVISION_NAME.replace(new RegExp(UNHOLDABLE, 'gu'), '\uFFFD'))
            wrong.push(`shift ${id}: division_name ${JSON.stringify(row['division_name'])}`);
          if (row['division_external_id'] !== 'EXT\uFFFD-\uFFFD') wrong.push(`shift ${id}: external id`);
        }
        comments.set(id, asInWorkbook(unguarded(row['comment'] ?? '')));
      }
      if (replaced === 0 || behindBlanks === 0 || renamed === 0)
        wrong.push(
          `nothing hostile arrived: ${replaced} replaced, ${behindBlanks} behind blanks, ${renamed} renamed`,
        );
      for (const file of [
        'summary_by_division.csv',
        'summary_by_day.csv',
        'summary_by_region.csv',
        'summary_by_shop.csv',
        'summary_by_user.csv',
      ]) {
        if (UNHOLDABLE.test(readFileSync(join(folder, file), 'utf8')))
          wrong.push(`${file} holds an unholdable character`);
      }

      const workbookPath = join(folder, 'shifts.xlsx');
      const problems = xmlPartProblems(readFileSync(workbookPath));
      if (problems.length > 0) wrong.push(`workbook: ${problems.slice(0, 3).join('; ')}`);
      const compare = (
        reader: string,
        shown: readonly (readonly unknown[])[],
        seen: (text: string) => string = (text) => text,
      ): void => {
        if (shown.length !== csv.length + 1)
          wrong.push(`${reader} shows ${shown.length - 1} rows, shifts.csv has ${csv.length}`);
        let differences = 0;
        for (const row of shown.slice(1)) {
          const text = comments.get(String(row[0] ?? ''));
          if (text === undefined || seen(text) !== (row[1] ?? '')) differences++;
        }
        if (differences > 0) wrong.push(`${reader}: ${differences} comments differ from shifts.csv`);
      };
      const readers = ['a strict XML parser'];
      const read = async (
        reader: string,
        rowsOf: () => Promise<unknown[][]>,
        seen?: (t: string) => string,
      ) => {
        try {
          compare(reader, await rowsOf(), seen);
          readers.push(reader);
        } catch (error) {
          const lines = (error instanceof Error ? error.message : String(error)).trim().split('\n');
          wrong.push(`${reader} refused the workbook: ${lines.at(-1)}`);
        }
      };
      if (OPENPYXL_PYTHON !== undefined)
        await read(
          'openpyxl',
          async () => (await openpyxlSheets(workbookPath, [ID, COMMENT]))['Shifts'] ?? [],
        );
      if (SOFFICE !== undefined) {
        // LibreOffice leaves out a leading U+200B (openpyxl shows that the workbook holds it).
        await read(
          'LibreOffice',
          async () => (await libreOfficeShiftsSheet(workbookPath)).map((r) => [r[ID], r[COMMENT]]),
          (text) => text.replace(/^\u200b/, ''),
        );
      }
      if (wrong.length > 0) throw new Error(wrong.slice(0, 5).join('; '));
      return {
        ...rows,
        outcome: `published (${rows.rejected} rejected); ${replaced.toLocaleString('en-US')} rows with replaced text flagged, ${guarded.toLocaleString('en-US')} formulas guarded (${behindBlanks.toLocaleString('en-US')} behind blanks); workbook read by ${readers.join(', ')}: all ${csv.length.toLocaleString('en-US')} rows, same text as the CSV`,
      };
    }));
});
