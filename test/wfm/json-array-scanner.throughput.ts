// Throughput of JsonArrayScanner on ~900-byte report rows, one core, no network: the number the
// ingest target (>= 200k rows/s download + parse) rests on. Not a test (no assertions,
// prints to stdout); run it with
//   npx tsc --outDir /tmp/scanner-throughput --module nodenext --moduleResolution nodenext \
//     --target es2023 --skipLibCheck test/wfm/json-array-scanner.throughput.ts \
//   && node /tmp/scanner-throughput/test/wfm/json-array-scanner.throughput.js [rows]

import { JsonArrayScanner } from '../../src/wfm/json-array-scanner.js';

const CYRILLIC = {
  position: 'Старший продавец-консультант',
  name: 'Анна Петрова',
  division: 'Северо-Западный дивизион',
  region: 'Санкт-Петербург',
  locality: 'ТЦ Галерея',
  address: 'г. Санкт-Петербург, Лиговский пр., д. 30А',
  comment: 'Смена прошла "нормально", без замечаний 😀',
};
const LATIN = {
  position: 'Senior sales associate',
  name: 'Anna Petrova',
  division: 'North-West division',
  region: 'Saint Petersburg',
  locality: 'Galleria mall',
  address: '30A Ligovsky prospekt, Saint Petersburg',
  comment: 'Shift went "fine", no remarks, many customers today',
};

function row(i: number, t: typeof LATIN): Record<string, unknown> {
  return {
    id: 1_000_000 + i,
    user_id: 50_000 + (i % 977),
    user_login: `user.number${i % 977}@example-company.com`,
    user_org_level: 'SHOP',
    user_position: t.position,
    user_display_name: t.name,
    division_id: 12,
    division_name: t.division,
    region_id: 345,
    region_name: t.region,
    shop_id: 7890 + (i % 50),
    shop_sap: '004512',
    shop_locality: t.locality,
    shop_address: t.address,
    start_time: '2024-05-01T06:30:00.123',
    start_time_offset: 180,
    finish_time: '2024-05-01T15:45:12.5',
    finish_time_offset: 180,
    duration: 33_312,
    comment: i % 3 === 0 ? t.comment : null,
    start_location_lat: 59.9275123,
    start_location_lon: 30.3608812,
    start_location_distance: 12,
    start_location_match: true,
    finish_location_lat: 59.9275999,
    finish_location_lon: 30.3609001,
    finish_location_distance: 250,
    finish_location_match: false,
    auto_finished: false,
  };
}

function body(rows: number, cyrillicShare: number): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < rows; i++)
    parts.push(JSON.stringify(row(i, i % 100 < cyrillicShare * 100 ? CYRILLIC : LATIN)));
  return Buffer.from(`[${parts.join(',')}]`);
}

interface Timing {
  readonly wall: number;
  readonly cpu: number;
}

/** Wall and CPU seconds of `run`: on a shared machine, CPU time is the steadier figure. */
function time(run: () => void): Timing {
  const wall = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  run();
  const used = process.cpuUsage(cpu);
  return { wall: Number(process.hrtime.bigint() - wall) / 1e9, cpu: (used.user + used.system) / 1e6 };
}

function scanWhole(bytes: Buffer, chunkBytes: number): void {
  const scanner = new JsonArrayScanner({ maxBodyBytes: Number.MAX_SAFE_INTEGER, maxRowBytes: 1 << 24 });
  let rows = 0;
  for (let at = 0; at < bytes.length; at += chunkBytes)
    rows += scanner.push(bytes.subarray(at, at + chunkBytes)).length;
  rows += scanner.end().length;
  if (rows !== ROWS) throw new Error(`expected ${ROWS} rows, got ${rows}`);
}

function median(timings: readonly Timing[], key: keyof Timing): number {
  return timings.map((t) => t[key]).sort((a, b) => a - b)[Math.floor(timings.length / 2)]!;
}

const ROWS = Number(process.argv[2] ?? 200_000);
const rate = (seconds: number) =>
  Math.round(ROWS / seconds)
    .toLocaleString('en')
    .padStart(9);
for (const share of [0, 0.5, 1]) {
  const bytes = body(ROWS, share);
  const scans = [0, 1, 2, 3].map(() => time(() => scanWhole(bytes, 64 * 1024))).slice(1);
  const parses = [0, 1, 2].map(() => time(() => JSON.parse(bytes.toString('utf8'))));
  console.log(
    `${String(share * 100).padStart(3)}% Cyrillic rows, ${(bytes.length / ROWS).toFixed(0)} B/row | ` +
      `scanner: ${rate(median(scans, 'wall'))} rows/s wall, ${rate(median(scans, 'cpu'))} rows/CPU-s | ` +
      `JSON.parse of the whole body: ${rate(median(parses, 'wall'))} rows/s wall, ${rate(median(parses, 'cpu'))} rows/CPU-s`,
  );
}
