// Spec 4.2: divisions. Writes need ROLE_ORGSTRUCT_ADMIN; reads need any valid token. `fields`
// (dirs, dirsWithBusinessDirs, regions; default dirs) chooses the extra members: dirs is the manager
// list, dirsWithBusinessDirs is the same list with each manager's `businessDir: {id, name}`,
// regions adds `regions: [{id, externalId, name, active, shopsCount}]`; `fields=` (empty) adds
// none. List filters: ids, nameLike (case-insensitive substring), userId (a manager of the division
// or a user whose home shop is in it), businessDirId (a manager of that business direction),
// search (name, or a manager's first or last name, case-insensitive), shopId, active, withDirs
// (true: only divisions with managers; false: no filter).

import type { FastifyInstance } from 'fastify';
import {
  DEFAULT_DIVISION_FIELDS,
  DIVISION_FIELDS,
  DIVISIONS_PATH,
  divisionCreateSchema,
  divisionUpdateSchema,
  type DivisionField,
} from 'wfm-contract/division';
import { ROLE_ORGSTRUCT_ADMIN } from '../auth.js';
import { HttpError } from '../http-error.js';
import {
  booleanParam,
  integerListParam,
  integerParam,
  listParam,
  searchParamsOf,
  stringParam,
  toInteger,
} from '../query-params.js';
import { capRows, faultsOf, guard, sendJson, type SandboxContext } from '../sandbox-context.js';

export function registerDivisionRoutes(app: FastifyInstance, context: SandboxContext): void {
  const read = { onRequest: guard(context, 'divisions', undefined) };
  const write = { onRequest: guard(context, 'divisions', ROLE_ORGSTRUCT_ADMIN) };

  app.get(DIVISIONS_PATH, read, (request, reply) => {
    const params = searchParamsOf(request.url);
    const list = context.divisions.list({
      ids: integerListParam(params, 'ids'),
      nameLike: stringParam(params, 'nameLike'),
      userId: integerParam(params, 'userId'),
      businessDirId: integerParam(params, 'businessDirId'),
      search: stringParam(params, 'search'),
      shopId: integerParam(params, 'shopId'),
      active: booleanParam(params, 'active'),
      withDirs: booleanParam(params, 'withDirs'),
      fields: fieldsParam(params),
    });
    return sendJson(context, reply, 'divisions', capRows(list, faultsOf(context, request)));
  });

  app.get<{ Params: { id: string } }>(`${DIVISIONS_PATH}/:id`, read, (request, reply) => {
    const id = toInteger('division id', request.params.id);
    const division = context.divisions.get(id, fieldsParam(searchParamsOf(request.url)));
    if (division === undefined) throw notFound(id);
    return sendJson(context, reply, 'divisions', division);
  });

  app.post(DIVISIONS_PATH, write, (request, reply) => {
    const input = divisionCreateSchema.parse(request.body);
    return sendJson(context, reply, 'divisions', context.divisions.create(input));
  });

  app.put<{ Params: { id: string } }>(`${DIVISIONS_PATH}/:id`, write, (request, reply) => {
    const id = toInteger('division id', request.params.id);
    const input = divisionUpdateSchema.parse(request.body);
    const updated = context.divisions.update(id, input);
    if (updated === undefined) throw notFound(id);
    return sendJson(context, reply, 'divisions', updated);
  });
}

function fieldsParam(params: URLSearchParams): readonly DivisionField[] {
  if (!params.has('fields')) return DEFAULT_DIVISION_FIELDS;
  const values = listParam(params, 'fields') ?? [];
  for (const value of values) {
    if (!(DIVISION_FIELDS as readonly string[]).includes(value)) {
      throw new HttpError(400, `fields: unknown value "${value}" (allowed: ${DIVISION_FIELDS.join(', ')})`);
    }
  }
  return values as DivisionField[];
}

function notFound(id: number): HttpError {
  return new HttpError(404, `division ${id} not found`);
}
