// The export definitions in the control API:
//   GET  /definitions   every definition (EXPORTS_FILE, or the legacy `nightly` one) with its
//                       schedule, period rule, formats, language, dest, filter, split, delivery (webhook
//                       URLs shown as scheme and host) and its next runs with the periods each
//                       exports; ?runs=N (1 to 20, default 3) runs each
// and the definition form of POST /exports (exports-routes.ts), `{"export": NAME, "date": D}`:
// the run the definition's schedule would make on local date D (default: today in its zone), one
// job per period. The file is read for each request, as the worker reads it at start and on
// SIGHUP, so the API shows the file as it is now; a file with problems answers 503
// exports_file_invalid with the first problem.

import type { FastifyInstance } from 'fastify';
import { upcomingRuns } from '../definitions/definition-runs.js';
import {
  shownWebhook,
  type ExportDefinition,
  type ExportDefinitions,
} from '../definitions/export-definition.js';
import { describePeriodRule, periodRuleText } from '../definitions/period-rule.js';
import { formatZoned } from '../definitions/zoned-time.js';
import { ApiError } from './api-error.js';

/** Next runs listed per definition unless ?runs= says otherwise. */
export const DEFAULT_NEXT_RUNS = 3;
const MAX_NEXT_RUNS = 20;

export interface DefinitionsRoutesDeps {
  /** The definitions as the worker would load them now; throws ExportsFileInvalidError. */
  readonly definitions: () => Promise<ExportDefinitions>;
  readonly now?: () => number;
}

function runsParam(query: unknown): number {
  const text = (query as { runs?: unknown } | null)?.runs;
  if (text === undefined) return DEFAULT_NEXT_RUNS;
  const runs = typeof text === 'string' && /^\d{1,2}$/.test(text) ? Number(text) : Number.NaN;
  if (!(runs >= 1 && runs <= MAX_NEXT_RUNS))
    throw new ApiError(400, 'invalid_request', `runs: expected a whole number from 1 to ${MAX_NEXT_RUNS}`);
  return runs;
}

/** A definition as GET /definitions shows it (snake_case, as the job results and manifests are). */
export function definitionView(definition: ExportDefinition, nowMs: number, runs: number): object {
  const tz = definition.schedule?.tz ?? 'UTC';
  const email = definition.deliver?.email;
  return {
    name: definition.name,
    schedule: definition.schedule === undefined ? null : { ...definition.schedule },
    period: periodRuleText(definition.period),
    period_rule: describePeriodRule(definition.period),
    lookback_days: definition.lookbackDays,
    formats: definition.formats,
    lang: definition.lang,
    dest: definition.dest,
    filter:
      definition.filter === undefined
        ? null
        : {
            divisions: definition.filter.divisions ?? null,
            regions: definition.filter.regions ?? null,
            shops: definition.filter.shops ?? null,
          },
    split: definition.split ?? null,
    deliver:
      definition.deliver === undefined
        ? null
        : {
            email: email === undefined ? null : { ...email },
            webhooks: definition.deliver.webhooks.map(shownWebhook),
          },
    next_runs: upcomingRuns(definition, nowMs, runs).map((run) => ({
      at: new Date(run.at).toISOString(),
      local: formatZoned(run.at, tz),
      periods: run.periods.map((p) => ({ from: p.from, to: p.to })),
    })),
  };
}

export function registerDefinitionsRoutes(app: FastifyInstance, deps: DefinitionsRoutesDeps): void {
  app.get('/definitions', async (request) => {
    const runs = runsParam(request.query);
    const set = await deps.definitions();
    const now = deps.now?.() ?? Date.now();
    return {
      source: set.source.kind,
      file: set.source.kind === 'file' ? set.source.file : null,
      definitions: set.definitions.map((d) => definitionView(d, now, runs)),
    };
  });
}
