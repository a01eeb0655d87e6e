// node dist/bench/cut-work-stages.js [--rows N] [--rounds N] [--sheet] [--only work|take|csv|sheet|known]: what each stage of an
// export thread's work (export/cut-work.ts) costs a row, on one thread. A sandbox started in this
// process serves its report once (the request the export sends, uncompressed), the body is cut as
// the reader cuts it (JsonArrayScanner, 64 KiB chunks), and then, cut by cut as an export thread
// goes, the stages run one after another, each timed on its own: parse, validate, localise, the
// window, enrich, the fingerprints, the CSV records. Times are CPU (process.cpuUsage: this thread
// plus V8's helper threads, so the collection of what a stage leaves is charged to whichever stage
// runs when it comes, as in an export). `whole work()` is CutWorker.work itself over the same cuts;
// `of which the rest` is what it does besides the stages timed (the facts and labels, the ids,
// joining the outputs). Medians of `--rounds` rounds, in CPU-µs per row of the report.
// `--sheet` adds a stage apart from work(), `sheet rows`: a workbook's rows of the cut as its
// thread renders them when the export's thread asks (export/sheet-rows-work.ts), every style
// registered. Off by default: what it leaves for the collector is charged to the stages after it.
// `--only work` runs work() alone, for `node --cpu-prof`; `--only csv` and `--only sheet` time the
// CSV records or the sheet rows alone over the cuts' rows made once beforehand (for a profile of
// that one stage, or before/after turns of a change to it). `--only take` times what the export's own
// thread does with the worked cuts (WorkedCutPipeline.take: duplicates, statistics, the exported
// rows' runs), each cut taken whole, in CPU-µs per row of the report. `--only known` times a
// workbook's cuts worked with their texts labelled afresh each cut or through a KnownTextIds, and
// the export's thread's look-ups of their texts (cutTextIds) without and with remembered indices.
// Figures: docs/performance.md ("Where an export thread's CPU goes").

import { rmSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatDay, parseDay } from 'wfm-contract/civil-time';
import { startSandbox } from 'wfm-sandbox';
import { RowHasher } from '../src/changes/row-hash.js';
import { loadWfmConfig, requireUpstream } from '../src/config/wfm-config.js';
import type { Period } from '../src/domain/period.js';
import { SHIFT_COLUMNS } from '../src/domain/shift-columns.js';
import type { ShiftRecord, ValidShift } from '../src/domain/shift-record.js';
import {
  CutWorker,
  LABEL,
  LABELS,
  type CutWorkSetup,
  type KeptCut,
  type WorkedCut,
} from '../src/export/cut-work.js';
import { WorkedCutPipeline } from '../src/export/worked-cut-pipeline.js';
import { silentLogger } from '../src/logger.js';
import { divisionDirectory, enrichShift } from '../src/pipeline/enrich.js';
import { localiseShift } from '../src/pipeline/localise.js';
import { isRejected, validateShift } from '../src/pipeline/validate.js';
import { BusinessDayWindow } from '../src/pipeline/window.js';
import { CsvRecordEncoder } from '../src/render/csv/csv-table-writer.js';
import {
  cutTextIds,
  KnownTextIds,
  newSharedTextsNumber,
  SharedTexts,
} from '../src/render/xlsx/shared-texts.js';
import {
  renderShiftRowsXml,
  SHARED_TEXT_SHIFT_COLUMNS,
  sharedTextOf,
  type ShiftStyleIds,
} from '../src/render/xlsx/shift-rows-xml.js';
import { parseCut, type ScannedCut } from '../src/wfm/scanned-cut.js';
import { WfmClient } from '../src/wfm/wfm-client.js';
import { SANDBOX_END_DATE } from './child-server.js';
import { median } from './bench-lines.js';
import { cutBody } from './cut-body.js';
import { downloadReport } from './report-file.js';
import { cpuMicros } from './thread-cpu.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '7' },
    only: { type: 'string' },
    sheet: { type: 'boolean', default: false },
  },
});
const ROWS = Number(values.rows);
const ROUNDS = Number(values.rounds);
const DAYS = 28;
const lastDay = parseDay(SANDBOX_END_DATE) ?? 0;
const period: Period = { from: formatDay(lastDay - DAYS + 1), to: SANDBOX_END_DATE };

/** The report's cuts (own copies of their bytes) and the division list, fetched once. */
async function fetchReport(): Promise<{ cuts: ScannedCut[]; setup: CutWorkSetup }> {
  const sandbox = await startSandbox({ port: 0, rows: ROWS, endDate: SANDBOX_END_DATE, days: DAYS });
  const scratch = mkdtempSync(join(tmpdir(), 'cut-work-stages-'));
  try {
    const token = sandbox.adminToken ?? '';
    const file = await downloadReport(sandbox.url, token, period, join(scratch, 'report.json'));
    const client = new WfmClient(
      requireUpstream(loadWfmConfig({ WFM_BASE_URL: sandbox.url, WFM_TOKEN: token })),
      { logger: silentLogger },
    );
    const divisions = divisionDirectory(await client.listDivisions({ fields: ['dirs'] }));
    const setup: CutWorkSetup = {
      period,
      divisions,
      filter: undefined,
      // The defaults: CSV_DELIMITER `,`, CSV_DECIMAL `.`, CSV_BOM on.
      csv: { delimiter: ',', decimal: '.', bom: true },
    };
    return { cuts: cutsOf(readFileSync(file.path)), setup };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await sandbox.close();
  }
}

/** The body cut as the report reader cuts it, each cut's bytes copied out of the scanner's pool. */
function cutsOf(body: Buffer): ScannedCut[] {
  const cuts: ScannedCut[] = [];
  cutBody(body, 64 * 1024, true, (cut) => cuts.push({ ...cut, bytes: Buffer.from(cut.bytes) }));
  return cuts;
}

const { cuts, setup } = await fetchReport();
const rowCount = cuts.reduce((sum, cut) => sum + (parseCut(cut).length as number), 0);

if (values.only === 'work') {
  const worker = new CutWorker(setup);
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    times.push(cpuMicros(() => cuts.forEach((cut) => worker.work(cut))));
  }
  process.stdout.write(`whole work(): ${(median(times) / rowCount).toFixed(2)} CPU-µs a row\n`);
  process.exit(0);
}

if (values.only === 'known') {
  // A workbook's cuts worked as its threads work them, labelling their texts afresh each cut, or
  // through a KnownTextIds that learns the indices the export's thread gives (shared-texts.ts); the
  // export's thread's look-ups of the cuts' texts (cutTextIds) timed apart, with and without them.
  const sheetSetup: CutWorkSetup = { ...setup, sheetRows: true };
  const fresh = new CutWorker(sheetSetup);
  const labelled = new CutWorker(sheetSetup);
  const times = { fresh: [] as number[], known: [] as number[], asked: [] as number[], told: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const known = new KnownTextIds();
    const table = newSharedTextsNumber();
    const texts = {
      fresh: new SharedTexts({ add: nextText() }),
      known: new SharedTexts({ add: nextText() }),
    };
    const worked = { fresh: [] as WorkedCut[], known: [] as KeptCut[] };
    times.fresh.push(cpuMicros(() => cuts.forEach((cut) => worked.fresh.push(fresh.work(cut)))));
    let asked = 0;
    let told = 0;
    const lookUps = (cut: WorkedCut, sharedTexts: SharedTexts, number?: number): Int32Array => {
      const keep = new Uint8Array(cut.labels.length / LABELS).fill(1);
      const labels = { labels: cut.labels, stride: LABELS, offset: LABEL.sharedTexts, strings: cut.strings };
      return cutTextIds(sharedTexts, { ...labels, from: 0, keep, known: cut.knownTextIds }, number);
    };
    times.known.push(
      cpuMicros(() =>
        cuts.forEach((cut) => {
          const kept = labelled.workKeepingRecords(cut, known);
          const start = process.cpuUsage();
          const ids = lookUps(kept.worked, texts.known, table);
          const spent = process.cpuUsage(start);
          told += spent.user + spent.system;
          known.learn(table, kept.entries ?? [], ids);
        }),
      ) - told,
    );
    asked = cpuMicros(() => worked.fresh.forEach((cut) => lookUps(cut, texts.fresh)));
    times.asked.push(asked);
    times.told.push(told);
  }
  const perRow = (micros: number[]): string => (median(micros) / rowCount).toFixed(2);
  process.stdout.write(
    `work(), texts labelled afresh each cut: ${perRow(times.fresh)}; through KnownTextIds: ${perRow(times.known)} CPU-µs a row\n` +
      `cutTextIds on the export's thread, every text asked: ${perRow(times.asked)}; with the remembered indices: ${perRow(times.told)} CPU-µs a row\n`,
  );
  process.exit(0);
}

if (values.only === 'take') {
  const worker = new CutWorker(setup);
  const worked: WorkedCut[] = cuts.map((cut) => worker.work(cut));
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const pipeline = new WorkedCutPipeline({ divisions: setup.divisions, filtered: false });
    times.push(
      cpuMicros(() => {
        for (const cut of worked) pipeline.take([{ batch: cut, from: 0, to: cut.outcomes.length }]);
        // Counted here (LocalStatistics): the summaries are made before the promise returns.
        void pipeline.finish();
      }),
    );
  }
  process.stdout.write(
    `take() and finish(): ${(median(times) / rowCount).toFixed(2)} CPU-µs a row (least ${(Math.min(...times) / rowCount).toFixed(2)})\n`,
  );
  process.exit(0);
}

/** Style ids as a Shifts sheet has them after its first rows: what they are changes no cost. */
const SHEET_STYLES: ShiftStyleIds = {
  columns: SHIFT_COLUMNS.map((_, i) => i + 1),
  unstyled: [[0, 0]],
  row: 0,
};
/** The shared-strings table a workbook would have, bounded as one is: its indices counted here. */
let sharedTexts = 0;
const SHEET_TEXTS = new SharedTexts({ add: () => sharedTexts++ });
const hasher = new RowHasher<ShiftRecord>(SHIFT_COLUMNS);

/**
 * The shared-strings indices of rows' texts, row by row, as an export thread has them when asked
 * for its rows (sheet-rows-work.ts): its labels, given their indices by the export's thread.
 */
function rowTextIdsOf(records: readonly ShiftRecord[]): Int32Array {
  const columns = SHARED_TEXT_SHIFT_COLUMNS.length;
  const ids = new Int32Array(records.length * columns);
  records.forEach((record, k) => {
    for (let c = 0; c < columns; c++) {
      const text = sharedTextOf(record, c);
      ids[k * columns + c] = text === null ? -1 : SHEET_TEXTS.idOf(text);
    }
  });
  return ids;
}
const encoder = new CsvRecordEncoder(SHIFT_COLUMNS, setup.csv ?? { delimiter: ',', bom: false });

if (values.only === 'csv' || values.only === 'sheet') {
  // The cuts' rows in the window, made once; then only the one stage, round after round.
  const rowsOfCuts = cuts.map((cut) => {
    const rows = parseCut(cut);
    const records: ShiftRecord[] = [];
    for (let i = 0; i < rows.length; i++) {
      const valid = validateShift(rows[i], rows.texts, i);
      if (isRejected(valid)) continue;
      const record = localiseShift(valid);
      enrichShift(record, setup.divisions);
      records.push(record);
    }
    rows.texts?.release();
    const window = new BusinessDayWindow(period);
    return records.filter((record) => window.admits(record));
  });
  // The rows' shared texts' indices, made once: on a thread, work() labels the texts.
  const textIds = values.only === 'sheet' ? rowsOfCuts.map(rowTextIdsOf) : [];
  const render =
    values.only === 'csv'
      ? (records: ShiftRecord[]) => encoder.records(records)
      : (records: ShiftRecord[], cut: number) =>
          renderShiftRowsXml(records, 2, SHEET_STYLES, textIds[cut] as Int32Array);
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    times.push(cpuMicros(() => rowsOfCuts.forEach(render)));
  }
  process.stdout.write(
    `${values.only === 'csv' ? 'CSV records' : 'sheet rows'}: ${(median(times) / rowCount).toFixed(2)} CPU-µs a row (least ${(Math.min(...times) / rowCount).toFixed(2)})\n`,
  );
  process.exit(0);
}
const worker = new CutWorker(setup);
const STAGES = [
  'parse (UTF-8, JSON.parse)',
  'validate',
  'localise',
  'window',
  'enrich',
  'fingerprint (RowHasher)',
  'CSV records (CsvRecordEncoder)',
];
/** The stages work() runs: the sheet rows, after them, it does not. */
const WORK_STAGES = STAGES.length;
if (values.sheet === true) STAGES.push('sheet rows (renderShiftRowsXml)');

/** One cut through the stages as work() runs them, each timed on its own; CPU-µs per stage added to `spent`. */
function stagesOf(cut: ScannedCut, spent: Float64Array): void {
  let at = process.cpuUsage();
  let stage = 0;
  const lap = (): void => {
    const now = process.cpuUsage();
    spent[stage] = (spent[stage] as number) + now.user - at.user + (now.system - at.system);
    stage++;
    at = now;
  };
  const rows = parseCut(cut);
  lap();
  const valids: ValidShift[] = [];
  for (let i = 0; i < rows.length; i++) {
    const valid = validateShift(rows[i], rows.texts, i);
    if (!isRejected(valid)) valids.push(valid);
  }
  rows.texts?.release();
  lap();
  const records = valids.map(localiseShift);
  lap();
  const window = new BusinessDayWindow(period);
  const inWindow = records.filter((record) => window.admits(record));
  lap();
  for (const record of inWindow) enrichShift(record, setup.divisions);
  lap();
  const hashes = Buffer.allocUnsafeSlow(inWindow.length * 8);
  for (let k = 0; k < inWindow.length; k++) hasher.hashInto(inWindow[k] as ShiftRecord, hashes, k * 8);
  lap();
  encoder.records(inWindow);
  lap();
  if (values.sheet !== true) return;
  renderShiftRowsXml(inWindow, 2, SHEET_STYLES, rowTextIdsOf(inWindow));
  lap();
}

// Cut by cut, as an export thread goes: what a stage leaves for the collector is collected while
// the later stages run, as it is in work().
const perStage = STAGES.map(() => [] as number[]);
const wholes: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const spent = new Float64Array(STAGES.length);
  for (const cut of cuts) stagesOf(cut, spent);
  spent.forEach((micros, stage) => perStage[stage]?.push(micros / rowCount));
  wholes.push(cpuMicros(() => cuts.forEach((cut) => worker.work(cut))) / rowCount);
}
const medians = perStage.map(median);
const whole = median(wholes);
process.stdout.write(
  `${rowCount} rows in ${cuts.length} cuts, medians of ${ROUNDS} rounds, CPU-µs a row of the report\n`,
);
STAGES.forEach((name, stage) =>
  process.stdout.write(`${name.padEnd(32)} ${(medians[stage] as number).toFixed(2)}\n`),
);
process.stdout.write(`${'whole work()'.padEnd(32)} ${whole.toFixed(2)}\n`);
const staged = medians.slice(0, WORK_STAGES).reduce((sum, t) => sum + t, 0);
process.stdout.write(`${'  of which the rest'.padEnd(32)} ${(whole - staged).toFixed(2)}\n`);

/** A shared-strings sink that numbers the texts it is given from 0. */
function nextText(): () => number {
  let next = 0;
  return () => next++;
}
