// The live state of fault injection (see faults.ts for the plan's meaning). For a request to target
// T, settings come from plan[T] and then plan['*']; "…Next" counters are kept per plan entry and a
// request consumes T's counter first, then '*''s. Rates draw from a generator seeded with the
// sandbox's seed and reseeded by every new plan, so a plan replays the same way each time.

import { z } from 'zod';
import { FAULT_TARGETS, type FaultPlan, type FaultSpec, type FaultTarget } from './faults.js';
import { INVALID_ROW_VARIANT_NAMES } from './invalid-rows.js';
import { mix32, SeededRandom } from './random.js';

export type EndpointTarget = Exclude<FaultTarget, '*'>;

export type EarlyFault =
  | { readonly kind: 'error'; readonly status: number }
  | { readonly kind: 'rate-limit'; readonly retryAfter: string };

/** What goes wrong with a response body: a break after some bytes, or a trickle from the start. */
export type BodyFault =
  | { readonly kind: 'reset' | 'truncate' | 'stall'; readonly afterBytes: number }
  | { readonly kind: 'trickle'; readonly bytesPerSecond: number };

export interface RequestFaults {
  readonly latencyMs: number;
  readonly early: EarlyFault | undefined;
  readonly rowCap: number | undefined;
  readonly invalidRowRate: number;
  readonly invalidRowVariants: readonly string[] | undefined;
  readonly duplicateRowRate: number;
  readonly ignoreFilters: boolean;
  readonly hostileTextRate: number;
  readonly contentEncoding: string | undefined;
}

interface Counters {
  failNext: number;
  rateLimitNext: number;
  reset: number;
  truncate: number;
  stall: number;
  trickle: number;
  wrongBody: number;
}

const rate = z.number().min(0).max(1);
const count = z.number().int().min(0);
const faultSpecSchema = z.strictObject({
  latencyMs: count.max(600_000).optional(),
  failNext: count.optional(),
  errorRate: rate.optional(),
  errorStatus: z.literal([401, 403, 408, 500, 502, 503, 504]).optional(),
  rateLimitNext: count.optional(),
  retryAfter: z.string().min(1).optional(),
  resetAfterBytes: count.optional(),
  resetNext: count.optional(),
  truncateAfterBytes: count.optional(),
  truncateNext: count.optional(),
  stallAfterBytes: count.optional(),
  stallNext: count.optional(),
  rowCap: count.optional(),
  invalidRowRate: rate.optional(),
  invalidRowVariants: z
    .array(z.enum(INVALID_ROW_VARIANT_NAMES as [string, ...string[]]))
    .min(1)
    .optional(),
  duplicateRowRate: rate.optional(),
  ignoreFilters: z.boolean().optional(),
  hostileTextRate: rate.optional(),
  trickleBytesPerSecond: count.min(1).optional(),
  trickleNext: count.optional(),
  wrongBody: z.enum(['html', 'object']).optional(),
  wrongBodyNext: count.optional(),
  contentEncoding: z
    .string()
    .regex(/^[a-z0-9!#$%&'*+.^_`|~-]+$/i, 'must be a header token such as gzip or identity')
    .optional(),
});

export const faultPlanSchema = z.strictObject(
  Object.fromEntries(FAULT_TARGETS.map((t) => [t, faultSpecSchema.optional()])) as Record<
    FaultTarget,
    z.ZodOptional<typeof faultSpecSchema>
  >,
);

/** Checks a plan that came from outside (CLI flag, HTTP body); throws a ZodError when invalid. */
export function parseFaultPlan(input: unknown): FaultPlan {
  // JSON round trip drops the `undefined` members zod's optional() types allow.
  return JSON.parse(JSON.stringify(faultPlanSchema.parse(input))) as FaultPlan;
}

export class FaultController {
  private current: FaultPlan = {};
  private counters = new Map<FaultTarget, Counters>();
  private readonly random: SeededRandom;
  private readonly seed: number;

  constructor(seed: number, plan: FaultPlan = {}) {
    this.seed = seed;
    this.random = new SeededRandom(mix32(seed ^ 0xfa017));
    this.set(plan);
  }

  get plan(): FaultPlan {
    return this.current;
  }

  set(plan: FaultPlan): void {
    this.current = plan;
    this.random.reseed(mix32(this.seed ^ 0xfa017));
    this.counters = new Map(
      FAULT_TARGETS.flatMap((target) => {
        const spec = plan[target];
        if (spec === undefined) return [];
        return [
          [
            target,
            {
              failNext: spec.failNext ?? 0,
              rateLimitNext: spec.rateLimitNext ?? 0,
              reset: spec.resetAfterBytes === undefined ? 0 : (spec.resetNext ?? 1),
              truncate: spec.truncateAfterBytes === undefined ? 0 : (spec.truncateNext ?? 1),
              stall: spec.stallAfterBytes === undefined ? 0 : (spec.stallNext ?? 1),
              trickle: spec.trickleBytesPerSecond === undefined ? 0 : (spec.trickleNext ?? 1),
              wrongBody: spec.wrongBody === undefined ? 0 : (spec.wrongBodyNext ?? 1),
            },
          ],
        ];
      }),
    );
  }

  clear(): void {
    this.set({});
  }

  /** Draws the faults of one request that happen before any body byte. */
  forRequest(target: EndpointTarget): RequestFaults {
    const setting = <K extends keyof FaultSpec>(key: K): FaultSpec[K] | undefined =>
      this.current[target]?.[key] ?? this.current['*']?.[key];
    let early: EarlyFault | undefined;
    const failFrom = this.take(target, 'failNext');
    const errorRate = setting('errorRate') ?? 0;
    if (failFrom !== undefined) {
      early = { kind: 'error', status: this.current[failFrom]?.errorStatus ?? setting('errorStatus') ?? 503 };
    } else if (errorRate > 0 && this.random.next() < errorRate) {
      early = { kind: 'error', status: setting('errorStatus') ?? 503 };
    } else {
      const limitFrom = this.take(target, 'rateLimitNext');
      if (limitFrom !== undefined) {
        early = {
          kind: 'rate-limit',
          retryAfter: this.current[limitFrom]?.retryAfter ?? setting('retryAfter') ?? '1',
        };
      }
    }
    return {
      latencyMs: setting('latencyMs') ?? 0,
      early,
      rowCap: setting('rowCap'),
      invalidRowRate: setting('invalidRowRate') ?? 0,
      invalidRowVariants: setting('invalidRowVariants'),
      duplicateRowRate: setting('duplicateRowRate') ?? 0,
      ignoreFilters: setting('ignoreFilters') ?? false,
      hostileTextRate: setting('hostileTextRate') ?? 0,
      contentEncoding: setting('contentEncoding'),
    };
  }

  /** Draws a wrong answer (an HTML page, an object) for a request of `target`, if one is due. */
  forWrongBody(target: EndpointTarget): 'html' | 'object' | undefined {
    const from = this.take(target, 'wrongBody');
    return from === undefined ? undefined : this.current[from]?.wrongBody;
  }

  /** Draws the fault of a response body about to be sent (reset, then truncate, stall, trickle). */
  forBody(target: EndpointTarget): BodyFault | undefined {
    const kinds = [
      ['reset', 'resetAfterBytes'],
      ['truncate', 'truncateAfterBytes'],
      ['stall', 'stallAfterBytes'],
    ] as const;
    for (const [kind, bytesKey] of kinds) {
      const from = this.take(target, kind);
      if (from !== undefined) return { kind, afterBytes: this.current[from]?.[bytesKey] ?? 0 };
    }
    const trickleFrom = this.take(target, 'trickle');
    if (trickleFrom !== undefined)
      return { kind: 'trickle', bytesPerSecond: this.current[trickleFrom]?.trickleBytesPerSecond ?? 1 };
    return undefined;
  }

  /** Consumes one unit of a counter, the target's first; returns whose it was. */
  private take(target: EndpointTarget, counter: keyof Counters): FaultTarget | undefined {
    for (const key of [target, '*'] as const) {
      const counters = this.counters.get(key);
      if (counters !== undefined && counters[counter] > 0) {
        counters[counter]--;
        return key;
      }
    }
    return undefined;
  }
}
