import { describe, expect, it } from 'vitest';
import { ShiftExportError } from '../../src/errors.js';
import {
  excerptOf,
  WFM_ERROR_CODES,
  WfmAuthError,
  WfmBodyInvalidError,
  WfmBodyTooLargeError,
  WfmBodyTruncatedError,
  WfmHttpStatusError,
  WfmIncompleteError,
  WfmNetworkError,
  WfmPagingUnsupportedError,
  WfmResponseInvalidError,
  WfmResumeUnsafeError,
  WfmTimeoutError,
  type WfmError,
} from '../../src/wfm/wfm-error.js';

const TOKEN = 'tok-3f9a-SECRET';
const at = { method: 'GET', path: '/v1/connector/rpc/wfm_timers', attempts: 3 };

const samples: WfmError[] = [
  new WfmHttpStatusError({ ...at, status: 503, retryAfter: '2', bodyExcerpt: 'busy' }),
  new WfmHttpStatusError({ ...at, status: 404 }),
  new WfmAuthError({ ...at, status: 401 }),
  new WfmAuthError({ ...at, status: 403 }),
  new WfmTimeoutError('body', at),
  new WfmNetworkError('ECONNRESET', at),
  new WfmBodyInvalidError('not JSON', at),
  new WfmBodyTruncatedError('no "]"', at),
  new WfmIncompleteError(5000, 1000, at),
  new WfmBodyTooLargeError('too long', at),
  new WfmResponseInvalidError('no name', at),
  new WfmResumeUnsafeError('ids out of order', at),
  new WfmPagingUnsupportedError('limit ignored', at),
];

describe('WfmError', () => {
  it('uses one class per documented code, each a ShiftExportError', () => {
    expect(new Set(samples.map((e) => e.code))).toEqual(new Set(Object.keys(WFM_ERROR_CODES)));
    for (const error of samples) expect(error).toBeInstanceOf(ShiftExportError);
  });

  it('marks transient failures retryable and the rest not', () => {
    const retryable = Object.fromEntries(
      samples.map((e) => [`${e.code}${e.status === undefined ? '' : ` ${e.status}`}`, e.retryable]),
    );
    expect(retryable).toEqual({
      'WFM_HTTP_STATUS 503': true,
      'WFM_HTTP_STATUS 404': false,
      'WFM_AUTH 401': false,
      'WFM_AUTH 403': false,
      WFM_TIMEOUT: true,
      WFM_NETWORK: true,
      WFM_BODY_INVALID: true,
      WFM_BODY_TRUNCATED: true,
      WFM_INCOMPLETE: true,
      WFM_BODY_TOO_LARGE: false,
      WFM_RESPONSE_INVALID: false,
      WFM_RESUME_UNSAFE: true,
      WFM_PAGING_UNSUPPORTED: false,
    });
  });

  it('carries status, method, path, attempts and the excerpt in its details and its JSON', () => {
    const error = new WfmHttpStatusError({ ...at, status: 503, bodyExcerpt: 'busy', retryAfter: '2' });
    expect(error.details).toEqual({
      method: 'GET',
      path: '/v1/connector/rpc/wfm_timers',
      attempts: 3,
      status: 503,
      bodyExcerpt: 'busy',
      retryAfter: '2',
    });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'WfmHttpStatusError',
      code: 'WFM_HTTP_STATUS',
      message: error.message,
      retryable: true,
      details: error.details,
    });
    expect(error.toOneLine()).toBe(
      'WFM_HTTP_STATUS: the WFM API answered 503 (GET /v1/connector/rpc/wfm_timers, status 503, attempt 3)',
    );
  });

  it('says how many rows Content-Range promised and how many came', () => {
    expect(new WfmIncompleteError(5000, 1000, at).details).toMatchObject({
      expectedRows: 5000,
      receivedRows: 1000,
    });
  });
});

describe('excerptOf', () => {
  it('replaces every occurrence of the token', () => {
    expect(excerptOf(`{"error":"bad token ${TOKEN}","echo":"Bearer ${TOKEN}"}`, TOKEN)).toBe(
      '{"error":"bad token ***","echo":"Bearer ***"}',
    );
  });

  it('keeps one short line', () => {
    const excerpt = excerptOf(`line one\n\n  line two ${'x'.repeat(500)}`, TOKEN);
    expect(excerpt.startsWith('line one line two xxx')).toBe(true);
    expect(excerpt.length).toBeLessThanOrEqual(201);
  });

  it('escapes control characters, so a quoted body cannot drive a terminal or split a log line', () => {
    expect(excerptOf('\u001b[31mred\u0000\u007f\u0085 end', TOKEN)).toBe(
      '\\u{1b}[31mred\\u{0}\\u{7f}\\u{85} end',
    );
  });

  it('scrubs a token that the cut would otherwise split', () => {
    const excerpt = excerptOf(`${'a'.repeat(195)}${TOKEN}`, TOKEN);
    expect(excerpt).not.toContain(TOKEN.slice(0, 5));
  });
});
