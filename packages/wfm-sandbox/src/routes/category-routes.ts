// Spec 4.1: survey categories. Writes need ROLE_SURVEY_ADMIN; the list needs any valid token.
// `quick=true` keeps categories with at least one quick template, `quick=false` those with none;
// `notEmpty=true` keeps categories with at least one template (false, the default, keeps all).

import type { FastifyInstance } from 'fastify';
import { CATEGORIES_PATH, categoryInputSchema } from 'wfm-contract/category';
import { ROLE_SURVEY_ADMIN } from '../auth.js';
import { HttpError } from '../http-error.js';
import { booleanParam, searchParamsOf } from '../query-params.js';
import { capRows, faultsOf, guard, sendJson, type SandboxContext } from '../sandbox-context.js';

export function registerCategoryRoutes(app: FastifyInstance, context: SandboxContext): void {
  const read = { onRequest: guard(context, 'categories', undefined) };
  const write = { onRequest: guard(context, 'categories', ROLE_SURVEY_ADMIN) };

  app.get(CATEGORIES_PATH, read, (request, reply) => {
    const params = searchParamsOf(request.url);
    const list = context.categories.list({
      active: booleanParam(params, 'active'),
      quick: booleanParam(params, 'quick'),
      notEmpty: booleanParam(params, 'notEmpty'),
    });
    return sendJson(context, reply, 'categories', capRows(list, faultsOf(context, request)));
  });

  app.post(CATEGORIES_PATH, write, (request, reply) => {
    const input = categoryInputSchema.parse(request.body);
    return sendJson(context, reply, 'categories', context.categories.create(input));
  });

  app.put<{ Params: { id: string } }>(`${CATEGORIES_PATH}/:id`, write, (request, reply) => {
    const input = categoryInputSchema.parse(request.body);
    const updated = context.categories.update(request.params.id, input);
    if (updated === undefined) throw notFound(request.params.id);
    return sendJson(context, reply, 'categories', updated);
  });

  app.delete<{ Params: { id: string } }>(`${CATEGORIES_PATH}/:id`, write, (request, reply) => {
    if (!context.categories.delete(request.params.id)) throw notFound(request.params.id);
    return sendJson(context, reply, 'categories', {});
  });
}

function notFound(id: string): HttpError {
  return new HttpError(404, `category ${JSON.stringify(id)} not found`);
}
