// A small HTTP client for the sandbox's integration tests (undici `request`, whole bodies as text).

import { request, type Dispatcher } from 'undici';
import type { RunningSandbox } from '../../src/index.js';
import { SANDBOX_ADMIN_TOKEN } from './test-sandbox.js';

export interface HttpResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}

export interface CallOptions {
  /** Bearer token; null sends no Authorization header. Default: the admin token. */
  readonly token?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON unless it is a string. */
  readonly body?: unknown;
}

export async function call(
  sandbox: RunningSandbox,
  method: Dispatcher.HttpMethod,
  path: string,
  options: CallOptions = {},
): Promise<HttpResult> {
  const token = options.token === undefined ? SANDBOX_ADMIN_TOKEN : options.token;
  const headers: Record<string, string> = { ...options.headers };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(`${sandbox.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

export function json<T = unknown>(result: HttpResult): T {
  return JSON.parse(result.text) as T;
}

export const get = (sandbox: RunningSandbox, path: string, options?: CallOptions): Promise<HttpResult> =>
  call(sandbox, 'GET', path, options);
