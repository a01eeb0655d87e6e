// Shared pieces of the WFM client's integration tests: a config pointed at a test server with
// small, fast retry settings, and helpers that read a whole report into ids.

import { loadWfmConfig, requireUpstream, type ConnectedWfmConfig } from '../../src/config/wfm-config.js';
import type { EnvName } from '../../src/config/config-groups.js';
import type { ReadShiftsOptions, WfmClient } from '../../src/wfm/wfm-client.js';

/** A connected config for `url`: retries after 1..20 ms, 4 attempts; `env` overrides any key. */
export function testWfmConfig(url: string, env: Partial<Record<EnvName, string>> = {}): ConnectedWfmConfig {
  return requireUpstream(
    loadWfmConfig({
      WFM_BASE_URL: url,
      WFM_TOKEN: 'sandbox-admin',
      WFM_RETRY_ATTEMPTS: '4',
      WFM_RETRY_BASE_DELAY_MS: '1',
      WFM_RETRY_MAX_DELAY_MS: '20',
      WFM_RETRY_MAX_TOTAL_MS: '10000',
      WFM_CONNECT_TIMEOUT_MS: '2000',
      WFM_HEADERS_TIMEOUT_MS: '10000',
      WFM_BODY_TIMEOUT_MS: '10000',
      ...env,
    }),
  );
}

export interface ReadResult {
  readonly rows: unknown[];
  readonly ids: number[];
  readonly batches: number;
}

/** Reads the whole report. */
export async function readAll(client: WfmClient, options: ReadShiftsOptions = {}): Promise<ReadResult> {
  const rows: unknown[] = [];
  let batches = 0;
  for await (const batch of client.readShifts(options)) {
    batches++;
    for (const row of batch) rows.push(row);
  }
  return { rows, ids: rows.map(idOf), batches };
}

export function idOf(row: unknown): number {
  const id = (row as { id?: unknown }).id;
  if (typeof id !== 'number')
    throw new Error(`a row without a numeric id: ${JSON.stringify(row).slice(0, 200)}`);
  return id;
}

/** Reads until the promise settles; resolves with the rows read before the error and the error. */
export async function readUntilError(
  client: WfmClient,
  options: ReadShiftsOptions = {},
): Promise<{ readonly rows: unknown[]; readonly error: unknown }> {
  const rows: unknown[] = [];
  try {
    for await (const batch of client.readShifts(options)) for (const row of batch) rows.push(row);
  } catch (error) {
    return { rows, error };
  }
  throw new Error(`the read succeeded with ${rows.length} rows; an error was expected`);
}

/** 1..n */
export function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
