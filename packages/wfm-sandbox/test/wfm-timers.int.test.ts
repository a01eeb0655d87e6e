import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FinishedShift } from 'wfm-contract/finished-shift';
import { parseLocalDateTimeSeconds } from 'wfm-contract/local-date-time';
import { createSandboxReport, type RunningSandbox } from '../src/index.js';
import { finishedShiftSchema } from 'wfm-contract/finished-shift';
import { startTestSandbox, TEST_SANDBOX_END_DATE, TEST_SANDBOX_SEED } from './support/test-sandbox.js';
import { get, json, type HttpResult } from './support/sandbox-http.js';

const ROWS = 3000;
const PATH = '/v1/connector/rpc/wfm_timers';
let sandbox: RunningSandbox;
let all: FinishedShift[];

beforeAll(async () => {
  sandbox = await startTestSandbox({ rows: ROWS });
  all = [...createSandboxReport({ seed: TEST_SANDBOX_SEED, rows: ROWS, endDate: TEST_SANDBOX_END_DATE })];
});

afterAll(async () => {
  await sandbox.close();
});

const report = async (query: string, headers: Record<string, string> = {}): Promise<HttpResult> =>
  get(sandbox, `${PATH}${query === '' ? '' : `?${query}`}`, { headers });

const rows = async (query: string, headers: Record<string, string> = {}): Promise<FinishedShift[]> => {
  const res = await report(query, headers);
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return json<FinishedShift[]>(res);
};

const idsOf = (list: readonly { id: number }[]): number[] => list.map((r) => r.id);
const seconds = (text: string): number => parseLocalDateTimeSeconds(text) ?? Number.NaN;

describe('GET /v1/connector/rpc/wfm_timers', () => {
  it('returns the whole report in id order, every row valid, same as the in-process source', async () => {
    const res = await report('');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-range']).toBe(`0-${ROWS - 1}/*`);
    const body = json<FinishedShift[]>(res);
    expect(body).toEqual(all);
    expect(body.filter((r) => !finishedShiftSchema.safeParse(r).success)).toEqual([]);
  });

  it('combines repeated parameters on one column with AND (the client’s time window)', async () => {
    const from = all[500]?.start_time.slice(0, 19) ?? '';
    const to = all[900]?.start_time.slice(0, 19) ?? '';
    const got = await rows(`start_time=gte.${from}&start_time=lt.${to}`);
    const expected = all.filter(
      (r) => seconds(r.start_time) >= seconds(from) && seconds(r.start_time) < seconds(to),
    );
    expect(idsOf(got)).toEqual(idsOf(expected));
    expect(got.length).toBeGreaterThan(300);
  });

  it('applies eq, neq, gt, gte, lt, lte, in, is and like on other columns', async () => {
    const sample = all[42];
    if (sample === undefined) throw new Error('no row');
    const cases: [string, (r: FinishedShift) => boolean][] = [
      [`user_id=eq.${sample.user_id}`, (r) => r.user_id === sample.user_id],
      [`shop_sap=neq.${sample.shop_sap}`, (r) => r.shop_sap !== sample.shop_sap],
      ['duration=gt.40000', (r) => r.duration > 40000],
      ['start_time_offset=gte.600', (r) => r.start_time_offset >= 600],
      [
        'start_location_distance=lt.10',
        (r) => r.start_location_distance !== null && r.start_location_distance < 10,
      ],
      ['finish_location_lat=lte.-30', (r) => r.finish_location_lat !== null && r.finish_location_lat <= -30],
      ['start_time_offset=in.(330,345)', (r) => r.start_time_offset === 330 || r.start_time_offset === 345],
      ['comment=is.null', (r) => r.comment === null],
      ['start_location_match=is.false', (r) => r.start_location_match === false],
      ['auto_finished=is.true', (r) => r.auto_finished],
      ['comment=like.=*', (r) => r.comment?.startsWith('=') === true],
      ['user_org_level=eq.COMPANY', (r) => r.user_org_level === 'COMPANY'],
      [
        `division_name=eq.${encodeURIComponent(sample.division_name)}`,
        (r) => r.division_name === sample.division_name,
      ],
      ['finish_time=lt.2024-03-10', (r) => seconds(r.finish_time) < seconds('2024-03-10T00:00:00')],
      ['comment=not.is.null&comment=not.like.*e*', (r) => r.comment !== null && !r.comment.includes('e')],
    ];
    for (const [query, predicate] of cases) {
      const expected = idsOf(all.filter(predicate));
      expect(expected.length, query).toBeGreaterThan(0);
      expect(idsOf(await rows(query)), query).toEqual(expected);
    }
  });

  it('evaluates and=(…) and or=(…) trees, nested and negated', async () => {
    const got = await rows('and=(duration.gt.30000,or(start_time_offset.eq.345,start_time_offset.eq.-570))');
    expect(idsOf(got)).toEqual(
      idsOf(
        all.filter(
          (r) => r.duration > 30000 && (r.start_time_offset === 345 || r.start_time_offset === -570),
        ),
      ),
    );
    const negated = await rows('not.or=(comment.is.null,auto_finished.is.true)');
    expect(idsOf(negated)).toEqual(idsOf(all.filter((r) => !(r.comment === null || r.auto_finished))));
    const quoted = await rows(
      `or=(comment.eq."Prices, labels, and the promo stand: done",id.eq.${all[0]?.id ?? 0})`,
    );
    expect(
      quoted.every((r) => r.id === all[0]?.id || r.comment === 'Prices, labels, and the promo stand: done'),
    ).toBe(true);
    expect(quoted.length).toBeGreaterThan(1);
  });

  it('orders by id and start_time both ways, and by other columns', async () => {
    expect(idsOf(await rows('order=id.desc'))).toEqual(idsOf([...all].reverse()));
    expect(idsOf(await rows('order=start_time.asc'))).toEqual(idsOf(all));
    const byDuration = await rows('order=duration.desc,id.asc&limit=50');
    const expected = [...all].sort((a, b) => b.duration - a.duration || a.id - b.id).slice(0, 50);
    expect(idsOf(byDuration)).toEqual(idsOf(expected));
  });

  it('pages with limit and offset, and keyset pages cover the report exactly once', async () => {
    expect(idsOf(await rows('limit=10&offset=20'))).toEqual(idsOf(all.slice(20, 30)));
    const seen: number[] = [];
    let last = 0;
    for (;;) {
      const page = await rows(`order=id.asc&id=gt.${last}&limit=700`);
      seen.push(...idsOf(page));
      if (page.length < 700) break;
      last = page[page.length - 1]?.id ?? 0;
    }
    expect(seen).toEqual(idsOf(all));
  });

  it('honours the Range header and reports ranges in Content-Range', async () => {
    const res = await report('', { range: '100-149', 'range-unit': 'items' });
    expect(res.status).toBe(200);
    expect(res.headers['content-range']).toBe('100-149/*');
    expect(res.headers['range-unit']).toBe('items');
    expect(idsOf(json<FinishedShift[]>(res))).toEqual(idsOf(all.slice(100, 150)));
    const intersected = await report('offset=120&limit=100', { range: '100-149' });
    expect(intersected.headers['content-range']).toBe('120-149/*');
  });

  it('gives the exact total with Prefer: count=exact, filtered or not', async () => {
    const res = await report('limit=5', { prefer: 'count=exact' });
    expect(res.headers['content-range']).toBe(`0-4/${ROWS}`);
    expect(res.headers['preference-applied']).toBe('count=exact');
    const nulls = all.filter((r) => r.comment === null).length;
    expect(
      (await report('comment=is.null&limit=1', { prefer: 'count=exact' })).headers['content-range'],
    ).toBe(`0-0/${nulls}`);
    const empty = await report('id=lt.0', { prefer: 'count=exact' });
    expect(empty.headers['content-range']).toBe('*/0');
    expect(json(empty)).toEqual([]);
  });

  it('answers 416 for an offset past the end and an inverted Range', async () => {
    const past = await report(`offset=${ROWS}`, { prefer: 'count=exact' });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe(`*/${ROWS}`);
    expect(json(past)).toMatchObject({ error: 'Range Not Satisfiable', code: 'PGRST103' });
    expect((await report('', { range: '50-10' })).status).toBe(416);
    expect((await report(`offset=${ROWS - 1}`)).status).toBe(200);
  });

  it('returns only the selected columns with select', async () => {
    const got = await rows('select=id,comment,start_time&limit=3');
    expect(got).toEqual(
      all.slice(0, 3).map((r) => ({ id: r.id, comment: r.comment, start_time: r.start_time })),
    );
  });

  it('refuses unknown columns, bad operators and mistyped values with 400 {error, message, code}', async () => {
    for (const query of [
      'colour=eq.red',
      'id=like.1*',
      'id=eq.one',
      'start_time=gte.tomorrow',
      'auto_finished=is.maybe',
      'and=(id.eq.1',
      'order=id.up',
      'limit=ten',
      'select=nope',
    ]) {
      const res = await report(query);
      expect(res.status, query).toBe(400);
      expect(json(res), query).toMatchObject({
        error: 'Bad Request',
        message: expect.any(String),
        code: 'PGRST100',
      });
    }
  });
});
