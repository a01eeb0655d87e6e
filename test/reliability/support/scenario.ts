// Runs one scenario body, times it, records its table row whatever happens, and fails the test
// when the scenario failed or lost or duplicated rows.

import { basename } from 'node:path';
import { expect } from 'vitest';
import { recordRow, type ScenarioRow } from './results.js';

export interface ScenarioOutcome {
  readonly outcome: string;
  readonly expected?: number;
  readonly exported?: number;
  readonly lost?: number;
  readonly duplicates?: number;
}

export async function scenario(
  group: string,
  name: string,
  body: () => Promise<ScenarioOutcome>,
): Promise<void> {
  const started = performance.now();
  let result: ScenarioOutcome;
  let failure: unknown;
  try {
    result = await body();
  } catch (error) {
    failure = error;
    const message = error instanceof Error ? error.message : String(error);
    result = { outcome: message.split('\n')[0]?.slice(0, 160) ?? 'failed' };
  }
  const row: ScenarioRow = {
    group,
    scenario: name,
    outcome: result.outcome,
    expected: result.expected ?? null,
    exported: result.exported ?? null,
    lost: result.lost ?? null,
    duplicates: result.duplicates ?? null,
    ms: performance.now() - started,
    passed: failure === undefined && (result.lost ?? 0) === 0 && (result.duplicates ?? 0) === 0,
    file: basename(expect.getState().testPath ?? ''),
  };
  recordRow(row);
  if (failure !== undefined) throw failure;
  expect(row.lost ?? 0, `${name}: rows lost`).toBe(0);
  expect(row.duplicates ?? 0, `${name}: duplicate rows`).toBe(0);
}
