import { describe, expect, it } from 'vitest';
import { FaultController, parseFaultPlan } from '../src/fault-controller.js';

describe('FaultController', () => {
  it('fails exactly the next N requests of the target, then recovers', () => {
    const faults = new FaultController(1, { wfm_timers: { failNext: 2, errorStatus: 500 } });
    expect(faults.forRequest('divisions').early).toBeUndefined();
    expect(faults.forRequest('wfm_timers').early).toEqual({ kind: 'error', status: 500 });
    expect(faults.forRequest('wfm_timers').early).toEqual({ kind: 'error', status: 500 });
    expect(faults.forRequest('wfm_timers').early).toBeUndefined();
  });

  it("uses the target's settings first and '*' for the rest, counters included", () => {
    const faults = new FaultController(1, {
      '*': { failNext: 1, latencyMs: 5, rowCap: 10 },
      divisions: { rateLimitNext: 1, retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT', rowCap: 3 },
    });
    const first = faults.forRequest('divisions');
    expect(first.early).toEqual({ kind: 'error', status: 503 });
    expect(first.latencyMs).toBe(5);
    expect(first.rowCap).toBe(3);
    expect(faults.forRequest('divisions').early).toEqual({
      kind: 'rate-limit',
      retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT',
    });
    expect(faults.forRequest('categories')).toMatchObject({ early: undefined, rowCap: 10 });
  });

  it('draws error rates from the seed: the same plan replays the same way', () => {
    const draw = (): boolean[] => {
      const faults = new FaultController(42, { categories: { errorRate: 0.5 } });
      return Array.from({ length: 40 }, () => faults.forRequest('categories').early !== undefined);
    };
    const first = draw();
    expect(draw()).toEqual(first);
    expect(first.filter(Boolean).length).toBeGreaterThan(8);
    expect(first.filter(Boolean).length).toBeLessThan(32);
  });

  it('hands out body faults for their counts, 1 by default, reset before truncate before stall', () => {
    const faults = new FaultController(1, {
      wfm_timers: { resetAfterBytes: 10, truncateAfterBytes: 20, truncateNext: 2, stallAfterBytes: 30 },
    });
    expect(faults.forBody('wfm_timers')).toEqual({ kind: 'reset', afterBytes: 10 });
    expect(faults.forBody('wfm_timers')).toEqual({ kind: 'truncate', afterBytes: 20 });
    expect(faults.forBody('wfm_timers')).toEqual({ kind: 'truncate', afterBytes: 20 });
    expect(faults.forBody('wfm_timers')).toEqual({ kind: 'stall', afterBytes: 30 });
    expect(faults.forBody('wfm_timers')).toBeUndefined();
    expect(faults.forBody('divisions')).toBeUndefined();
  });

  it('hands out a trickle after the breaking body faults, and wrong bodies for their counts', () => {
    const faults = new FaultController(1, {
      wfm_timers: { stallAfterBytes: 5, trickleBytesPerSecond: 100, trickleNext: 2, wrongBody: 'html' },
      '*': { wrongBody: 'object', wrongBodyNext: 1 },
    });
    expect(faults.forBody('wfm_timers')).toEqual({ kind: 'stall', afterBytes: 5 });
    expect(faults.forBody('wfm_timers')).toEqual({ kind: 'trickle', bytesPerSecond: 100 });
    expect(faults.forBody('wfm_timers')).toEqual({ kind: 'trickle', bytesPerSecond: 100 });
    expect(faults.forBody('wfm_timers')).toBeUndefined();
    expect(faults.forWrongBody('wfm_timers')).toBe('html');
    expect(faults.forWrongBody('wfm_timers')).toBe('object');
    expect(faults.forWrongBody('wfm_timers')).toBeUndefined();
  });

  it('keeps contentEncoding as a setting of every request while the plan is in force', () => {
    const faults = new FaultController(1, { wfm_timers: { contentEncoding: 'br' } });
    expect(faults.forRequest('wfm_timers').contentEncoding).toBe('br');
    expect(faults.forRequest('wfm_timers').contentEncoding).toBe('br');
    expect(faults.forRequest('divisions').contentEncoding).toBeUndefined();
  });

  it('starts over when a plan is set and forgets everything when cleared', () => {
    const faults = new FaultController(1, { '*': { failNext: 1 } });
    faults.forRequest('categories');
    faults.set({ '*': { failNext: 1 } });
    expect(faults.forRequest('categories').early).toBeDefined();
    faults.set({ '*': { failNext: 5, ignoreFilters: true } });
    faults.clear();
    expect(faults.plan).toEqual({});
    expect(faults.forRequest('categories')).toMatchObject({ early: undefined, ignoreFilters: false });
  });
});

describe('parseFaultPlan', () => {
  it('accepts a plan of every kind of fault', () => {
    const plan = {
      '*': { latencyMs: 1 },
      wfm_timers: {
        rowCap: 5,
        invalidRowRate: 0.01,
        invalidRowVariants: ['id past 2^53', 'comment not UTF-8'],
        duplicateRowRate: 0.02,
        ignoreFilters: true,
        hostileTextRate: 0.1,
      },
      categories: { trickleBytesPerSecond: 10, trickleNext: 3, wrongBody: 'html', contentEncoding: 'zstd' },
      divisions: { errorRate: 1, errorStatus: 502 },
    };
    expect(parseFaultPlan(plan)).toEqual(plan);
  });

  it('refuses unknown targets, unknown keys, rates over 1, odd statuses and unknown row variants', () => {
    expect(() => parseFaultPlan({ shops: {} })).toThrow();
    expect(() => parseFaultPlan({ wfm_timers: { explode: true } })).toThrow();
    expect(() => parseFaultPlan({ wfm_timers: { errorRate: 1.5 } })).toThrow();
    expect(() => parseFaultPlan({ wfm_timers: { hostileTextRate: 2 } })).toThrow();
    expect(() => parseFaultPlan({ wfm_timers: { errorStatus: 418 } })).toThrow();
    expect(() => parseFaultPlan({ wfm_timers: { failNext: -1 } })).toThrow();
    expect(() => parseFaultPlan({ wfm_timers: { invalidRowVariants: ['id past 2^64'] } })).toThrow();
    expect(() => parseFaultPlan({ wfm_timers: { invalidRowVariants: [] } })).toThrow();
    expect(() => parseFaultPlan({ wfm_timers: { trickleBytesPerSecond: 0 } })).toThrow();
    expect(() => parseFaultPlan({ wfm_timers: { wrongBody: 'xml' } })).toThrow();
    expect(() => parseFaultPlan({ wfm_timers: { contentEncoding: 'gzip\r\nx-evil: 1' } })).toThrow();
  });
});
