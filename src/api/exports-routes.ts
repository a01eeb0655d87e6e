// The export routes of the control API:
//   POST /exports                   queue an export: 202 {jobId} when queued (or re-queued),
//                                   200 with the existing job when it was already there
//   GET  /exports/:id               the job: state, progress, failure reason, export summary
//   GET  /exports/:id/files/:name   a file of the completed export: a redirect to a presigned S3 URL
//                                   valid FILE_URL_SECONDS, or the file streamed from a local folder
//   POST /exports {export, date?, force?}
//                                   queue the run of an export definition that its schedule would
//                                   make on local date `date` (default: today in its zone): one job
//                                   per period; 202 {export, date, jobs: [{jobId, from, to, state,
//                                   deduplicated}]} when one was queued, else 200
// Bodies are checked with a strict zod schema (an unknown field is a 400), then as the CLI checks
// its flags (real period within EXPORT_MAX_DAYS, known formats, an acceptable destination); a
// `dest` must lie inside EXPORT_DEST or EXPORT_DEST_ALLOW (api-destination.ts). Downloads read only
// from a job's destination that lies there too: job data in Redis may have been edited.

import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ExportConfig } from '../config/export-config.js';
import { assertDestinationAllowed, destinationRoots } from '../destinations/allowed-destination.js';
import { parseDestination } from '../destination-address.js';
import { S3Destination } from '../destinations/s3-destination.js';
import { enqueueExport } from '../queue/enqueue-export.js';
import { exportJobDataSchema } from '../queue/export-job-data.js';
import { readExportJobResult } from '../queue/export-job-result.js';
import { BODY_FIELDS, checkExportRequest } from '../queue/export-request.js';
import { loadJobView } from '../queue/job-view.js';
import { readMailDeliveryRecord } from '../queue/mail-delivery-record.js';
import type { RedisClient } from '../queue/redis-connection.js';
import { parseManifest } from '../render/manifest.js';
import { assertApiDestination } from './api-destination.js';
import { ApiError } from './api-error.js';
import { definitionExports, requireDefinition, runDayOf } from '../definitions/definition-exports.js';
import { periodsOnRunDay } from '../definitions/definition-runs.js';
import type { ExportDefinitions } from '../definitions/export-definition.js';
import { formatDay } from 'wfm-contract/civil-time';
import { exportJobData } from '../queue/export-job-data.js';
import type { DestinationPool } from './destination-pool.js';

/** Lifetime of presigned download URLs. */
export const FILE_URL_SECONDS = 300;

export const exportBodySchema = z.strictObject({
  from: z.string().max(32),
  to: z.string().max(32),
  formats: z.array(z.string().max(16)).min(1).max(4).optional(),
  dest: z.string().min(1).max(1024).optional(),
  force: z.boolean().optional(),
});

/** The definition form: the run of an export definition (definitions-routes.ts). */
export const definitionRunBodySchema = z.strictObject({
  export: z.string().min(1).max(64),
  date: z.string().max(32).optional(),
  force: z.boolean().optional(),
});

const JOB_ID = /^[A-Za-z0-9][A-Za-z0-9_.+-]{0,255}$/;
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export interface ExportRoutesDeps {
  readonly queue: Queue;
  readonly exportConfig: ExportConfig;
  readonly destinations: DestinationPool;
  /** The export definitions as the worker would load them now; throws ExportsFileInvalidError. */
  readonly definitions: () => Promise<ExportDefinitions>;
  readonly now?: () => number;
  /** Where the e-mail outcome of each export is kept (src/queue/mail-delivery-record.ts). */
  readonly mailRecords?: { readonly redis: RedisClient; readonly prefix: string };
}

type Body =
  | { readonly kind: 'period'; readonly body: z.infer<typeof exportBodySchema> }
  | { readonly kind: 'definition'; readonly body: z.infer<typeof definitionRunBodySchema> };

/** The body in one of its two forms: a member `export` makes it the definition form. */
function bodyOf(body: unknown): Body {
  const definitionForm = typeof body === 'object' && body !== null && 'export' in body;
  const parsed = definitionForm
    ? definitionRunBodySchema.safeParse(body)
    : exportBodySchema.safeParse(body ?? undefined);
  if (parsed.success)
    return definitionForm
      ? { kind: 'definition', body: parsed.data as z.infer<typeof definitionRunBodySchema> }
      : { kind: 'period', body: parsed.data as z.infer<typeof exportBodySchema> };
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? 'the body' : issue.path.join('.');
  const expected = definitionForm ? '{export, date?, force?}' : '{from, to, formats?, dest?, force?}';
  throw new ApiError(400, 'invalid_body', `${where}: ${issue?.message ?? 'invalid'} (expected ${expected})`);
}

function checkedJobId(id: string): string {
  if (!JOB_ID.test(id)) throw new ApiError(404, 'not_found', 'no such job');
  return id;
}

export function registerExportRoutes(app: FastifyInstance, deps: ExportRoutesDeps): void {
  const roots = destinationRoots(deps.exportConfig);
  app.post('/exports', async (request, reply) => {
    const parsed = bodyOf(request.body);
    if (parsed.kind === 'definition') {
      const { body } = parsed;
      const definition = requireDefinition(await deps.definitions(), body.export);
      const day = runDayOf(definition, body.date, 'date', deps.now?.() ?? Date.now());
      const jobs = [];
      for (const planned of definitionExports(definition, periodsOnRunDay(definition, day))) {
        const { from, to } = planned.period;
        const data = exportJobData(from, to, planned.formats, planned.dest, planned.definition);
        const outcome = await enqueueExport(deps.queue, data, { force: body.force === true });
        jobs.push({ jobId: outcome.jobId, from, to, state: outcome.state, deduplicated: !outcome.created });
      }
      return reply
        .code(jobs.some((j) => !j.deduplicated) ? 202 : 200)
        .send({ export: definition.name, date: formatDay(day), jobs });
    }
    const { body } = parsed;
    const data = checkExportRequest(
      { from: body.from, to: body.to, formats: body.formats, dest: body.dest },
      deps.exportConfig,
      parseDestination,
      { fields: BODY_FIELDS },
    );
    await assertApiDestination(body.dest, roots);
    const outcome = await enqueueExport(deps.queue, data, { force: body.force === true });
    return reply
      .code(outcome.created ? 202 : 200)
      .send({ jobId: outcome.jobId, state: outcome.state, deduplicated: !outcome.created });
  });

  app.get<{ Params: { id: string } }>('/exports/:id', async (request) => {
    const view = await loadJobView(deps.queue, checkedJobId(request.params.id));
    if (view === undefined) throw new ApiError(404, 'not_found', `no job ${request.params.id}`);
    // The e-mail of the export (deliver.email), when it had one: what `status` shows too.
    const mail =
      view.result === null || deps.mailRecords === undefined
        ? undefined
        : await readMailDeliveryRecord(
            deps.mailRecords.redis,
            deps.mailRecords.prefix,
            view.result.export_id,
          );
    return mail === undefined ? view : { ...view, mail_delivery: mail };
  });

  app.get<{ Params: { id: string; name: string } }>('/exports/:id/files/:name', async (request, reply) => {
    const id = checkedJobId(request.params.id);
    const name = request.params.name;
    if (!FILE_NAME.test(name)) throw new ApiError(404, 'not_found', `no file ${JSON.stringify(name)}`);
    const job = await deps.queue.getJob(id);
    if (job === undefined) throw new ApiError(404, 'not_found', `no job ${id}`);
    const state = await job.getState();
    const result = readExportJobResult(job.returnvalue);
    if (state !== 'completed' || result === undefined)
      throw new ApiError(409, 'not_completed', `job ${id} is ${state}, not a completed export`);
    const data = exportJobDataSchema.safeParse(job.data);
    const dest = data.success ? data.data.dest : undefined;
    await assertDestinationAllowed(dest ?? deps.exportConfig.dest, roots);
    const destination = await deps.destinations.get(dest);
    const period = result.period;
    // The published manifest is the truth: a later export of the period may have replaced this one.
    const manifestText = await destination.readManifest(period);
    if (manifestText === undefined)
      throw new ApiError(410, 'gone', `the export of ${period.from}..${period.to} is no longer published`);
    const manifest = parseManifest(manifestText);
    reply.header('x-export-id', manifest.export_id);
    if (name === 'manifest.json') return reply.type('application/json; charset=utf-8').send(manifestText);
    // A file at the top of the export: a split export's division files share their names.
    const file = manifest.files.find((f) => f.name === name && f.division_id === undefined);
    if (file === undefined)
      throw new ApiError(404, 'not_found', `export ${manifest.export_id} has no file ${name}`);
    if (destination instanceof S3Destination) {
      const url = await destination.presignPublishedFile(period, file.path, FILE_URL_SECONDS);
      return reply.header('cache-control', 'no-store').redirect(url, 302);
    }
    const stream = await destination.openPublishedFile(period, file.path);
    // As S3 serves it: a `.csv.gz` is text/csv with Content-Encoding gzip.
    if (file.content_encoding !== undefined) reply.header('content-encoding', file.content_encoding);
    return (
      reply
        // No content-length from the manifest: the period may be re-published between the two reads.
        .type(file.content_type)
        .header('content-disposition', `attachment; filename="${period.from}_${period.to}_${file.name}"`)
        .send(stream)
    );
  });
}
