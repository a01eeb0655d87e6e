// Spec 4.3: GET /v1/connector/rpc/wfm_timers, PostgREST-style (see timers-query.ts), streamed.
// Needs ROLE_WFM_REPORTS. Always 200 with Content-Range (`from-to/total`, total `*` unless
// `Prefer: count=exact`), 416 when the offset is past the last matching row. gzip-compressed when
// the request accepts it (or as the fault plan's contentEncoding says); a wrongBody fault answers
// 200 with an HTML page or a JSON object instead.

import type { FastifyInstance } from 'fastify';
import { REPORT_PATH } from 'wfm-contract/finished-shift';
import { ROLE_WFM_REPORTS } from '../auth.js';
import { sendError } from '../http-error.js';
import { planTimersPage } from '../plan-timers-page.js';
import { searchParamsOf } from '../query-params.js';
import { faultsOf, guard, type SandboxContext } from '../sandbox-context.js';
import { timersBody } from '../timers-body.js';
import { parseRangeHeader, parseTimersQuery, prefersCount, type TimersQuery } from '../timers-query.js';
import { negotiateEncoding, writeRawBody } from '../write-response.js';
import { wrongBody } from '../wrong-body.js';

const EVERYTHING: TimersQuery = {
  filters: [],
  order: [],
  limit: undefined,
  offset: undefined,
  select: undefined,
};

export function registerWfmTimersRoute(app: FastifyInstance, context: SandboxContext): void {
  app.get(
    REPORT_PATH,
    { onRequest: guard(context, 'wfm_timers', ROLE_WFM_REPORTS) },
    async (request, reply) => {
      const faults = faultsOf(context, request);
      const acceptEncoding = request.headers['accept-encoding'];
      const encoding =
        faults.contentEncoding ??
        negotiateEncoding(typeof acceptEncoding === 'string' ? acceptEncoding : undefined);
      const wrong = context.faults.forWrongBody('wfm_timers');
      if (wrong !== undefined) {
        return writeRawBody(reply, {
          ...wrongBody(wrong, request.headers.authorization),
          encoding,
          fault: context.faults.forBody('wfm_timers'),
        });
      }
      const ignore = faults.ignoreFilters;
      const query = ignore ? EVERYTHING : parseTimersQuery(searchParamsOf(request.url));
      const rangeHeader = request.headers.range;
      const range = ignore
        ? undefined
        : parseRangeHeader(typeof rangeHeader === 'string' ? rangeHeader : undefined);
      const prefer = request.headers.prefer;
      const countWanted = !ignore && prefersCount(typeof prefer === 'string' ? prefer : undefined);
      if (range === 'unsatisfiable') {
        return sendError(
          reply.header('content-range', '*/*'),
          416,
          'Requested range not satisfiable',
          'PGRST103',
        );
      }
      const page = await planTimersPage(context.generator, {
        query,
        range,
        countWanted,
        rowCap: faults.rowCap,
        ignoreFilters: ignore,
      });
      if (page.status === 416) {
        const message = 'Requested range not satisfiable: the offset is past the last matching row';
        return sendError(reply.header('content-range', page.contentRange ?? '*/*'), 416, message, 'PGRST103');
      }
      const headers: Record<string, string> = {};
      if (page.contentRange !== undefined) {
        headers['content-range'] = page.contentRange;
        headers['range-unit'] = 'items';
      }
      if (countWanted) headers['preference-applied'] = 'count=exact';
      const chunks = timersBody(context.generator, page, {
        seed: context.seed,
        select: query.select,
        invalidRowRate: faults.invalidRowRate,
        invalidRowVariants: faults.invalidRowVariants,
        duplicateRowRate: faults.duplicateRowRate,
        hostileTextRate: faults.hostileTextRate,
      });
      return writeRawBody(reply, {
        status: 200,
        headers,
        chunks,
        fault: context.faults.forBody('wfm_timers'),
        encoding,
      });
    },
  );
}
