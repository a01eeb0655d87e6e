// What every route of one sandbox instance shares: its data, its stores, its fault state and
// request counters, and the guard hook that applies faults and auth before a handler runs.

import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { checkAuthorization, type SandboxTokens } from './auth.js';
import type { CategoryStore } from './category-store.js';
import type { DivisionStore } from './division-store.js';
import type { EndpointTarget, FaultController, RequestFaults } from './fault-controller.js';
import type { FaultTarget } from './faults.js';
import { HttpError, sendError } from './http-error.js';
import type { ShiftGenerator } from './shift-generator.js';
import { JSON_CONTENT_TYPE, writeRawBody } from './write-response.js';

/** What the sandbox serves: its size and dates, as `GET /_sandbox/stats` and `sandbox` report them. */
export interface SandboxDataset {
  readonly seed: number;
  readonly rows: number;
  /** First and last business dates (YYYY-MM-DD) of the report. */
  readonly firstDate: string;
  readonly lastDate: string;
  readonly divisions: number;
  readonly regions: number;
  readonly shops: number;
  readonly users: number;
}

export interface SandboxContext {
  readonly seed: number;
  readonly tokens: SandboxTokens;
  readonly generator: ShiftGenerator;
  readonly categories: CategoryStore;
  readonly divisions: DivisionStore;
  readonly faults: FaultController;
  readonly requestCounts: Map<FaultTarget, number>;
  readonly requestFaults: WeakMap<FastifyRequest, RequestFaults>;
}

/**
 * The onRequest hook of an endpoint: counts the request, then applies the fault plan (latency,
 * injected errors, 429) before authentication — like a proxy in front of the service — and then
 * checks the token and the role.
 */
export function guard(
  context: SandboxContext,
  target: EndpointTarget,
  role: string | undefined,
): onRequestAsyncHookHandler {
  return async (request, reply) => {
    context.requestCounts.set(target, (context.requestCounts.get(target) ?? 0) + 1);
    context.requestCounts.set('*', (context.requestCounts.get('*') ?? 0) + 1);
    const faults = context.faults.forRequest(target);
    context.requestFaults.set(request, faults);
    if (faults.latencyMs > 0) await delay(faults.latencyMs);
    if (faults.early?.kind === 'error') {
      return sendError(
        reply,
        faults.early.status,
        `sandbox fault: injected ${faults.early.status} on ${target}`,
      );
    }
    if (faults.early?.kind === 'rate-limit') {
      reply.header('retry-after', faults.early.retryAfter);
      return sendError(reply, 429, `sandbox fault: rate limited on ${target}`);
    }
    const failure = checkAuthorization(context.tokens, request.headers.authorization, role);
    if (failure !== undefined) {
      if (failure.status === 401) reply.header('www-authenticate', 'Bearer');
      return sendError(reply, failure.status, failure.message);
    }
    return undefined;
  };
}

export function faultsOf(context: SandboxContext, request: FastifyRequest): RequestFaults {
  const faults = context.requestFaults.get(request);
  if (faults === undefined) throw new HttpError(500, 'sandbox: request without a guard');
  return faults;
}

/**
 * Answers 200 with a JSON value, through the body faults of the target (reset, truncate, stall)
 * when one is due.
 */
export function sendJson(
  context: SandboxContext,
  reply: FastifyReply,
  target: EndpointTarget,
  value: unknown,
): FastifyReply | Promise<void> {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  const fault = context.faults.forBody(target);
  if (fault === undefined) return reply.code(200).type(JSON_CONTENT_TYPE).send(body);
  return writeRawBody(reply, { status: 200, headers: {}, chunks: [body], fault });
}

/** rowCap applies to every list endpoint (PostgREST's max-rows has no count to betray it here). */
export function capRows<T>(rows: T[], faults: RequestFaults): T[] {
  return faults.rowCap === undefined ? rows : rows.slice(0, faults.rowCap);
}
