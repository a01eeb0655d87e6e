// `shift-export run` as a child process (the built CLI) against a scenario's sandbox, its output
// kept as evidence for the secret sweep, and what it left in the destination read back.

import { readdirSync } from 'node:fs';
import { cliEnv, runCli, type CliRun } from '../../support/cli.js';
import { checkLocalExport, publishedFolder, type RowCheck } from './exported-ids.js';
import { evidenceFolder, keepText, WFM_SECRET_TOKEN } from './evidence.js';
import type { ScenarioOutcome } from './scenario.js';

export interface CliExport {
  readonly run: CliRun;
  readonly dest: string;
  /** `CODE` of the one-line error (`CODE: message`), when the run failed. */
  readonly errorCode: string | undefined;
}

export async function runCliExport(
  name: string,
  options: {
    baseUrl: string;
    from: string;
    to: string;
    env?: Record<string, string>;
    timeoutMs?: number;
    /** Default: a fresh evidence folder. */
    dest?: string;
    formats?: string;
  },
): Promise<CliExport> {
  const dest = options.dest ?? evidenceFolder(name);
  const env = cliEnv({
    WFM_BASE_URL: options.baseUrl,
    WFM_TOKEN: WFM_SECRET_TOKEN,
    WFM_RETRY_BASE_DELAY_MS: '20',
    WFM_RETRY_MAX_DELAY_MS: '2000',
    LOG_LEVEL: 'info',
    ...options.env,
  });
  const run = await runCli(
    ['run', '--from', options.from, '--to', options.to, '--dest', dest, '--format', options.formats ?? 'csv'],
    env,
    options.timeoutMs ?? 90_000,
  );
  keepText(`cli-${name}`, `${run.stdout}\n${run.stderr}`);
  const lastLine = run.stderr.trim().split('\n').at(-1) ?? '';
  const errorCode =
    run.code === 0
      ? undefined
      : (/^(?:shift-export [a-z]+: )?([A-Z][A-Z0-9_]+):/.exec(lastLine)?.[1] ?? lastLine.slice(0, 80));
  return { run, dest, errorCode };
}

/** A run that had to publish a complete export: its row check. */
export async function publishedOutcome(
  result: CliExport,
  from: string,
  to: string,
  expected: ReadonlySet<number>,
  note = 'published',
): Promise<ScenarioOutcome & RowCheck> {
  if (result.run.code !== 0)
    throw new Error(
      `expected a published export, got exit ${result.run.code}: ${result.run.stderr.trim().split('\n').at(-1)}`,
    );
  const check = await checkLocalExport(result.dest, from, to, expected);
  return {
    outcome: `${note} (${check.rejected.toLocaleString('en-US')} rejected)`,
    expected: expected.size,
    ...check,
  };
}

/**
 * A run that had to fail loudly with `code`: nothing may be published (no folder, no partial files),
 * so no row is lost silently — an operator sees the error and the job is retried.
 */
export function failedOutcome(
  result: CliExport,
  codes: readonly string[],
  expected: number,
  why: string,
): ScenarioOutcome {
  if (result.run.code === 0)
    throw new Error(`expected the export to fail with ${codes.join('|')}, but it published`);
  if (result.errorCode === undefined || !codes.includes(result.errorCode))
    throw new Error(`expected ${codes.join('|')}, got: ${result.run.stderr.trim().split('\n').at(-1)}`);
  const left = readdirSync(result.dest);
  if (left.length > 0 || publishedFolder(result.dest, 'x', 'y') !== undefined)
    throw new Error(`a failed export left files behind: ${left.join(', ')}`);
  return {
    outcome: `failed ${result.errorCode}, nothing written (${why})`,
    expected,
    exported: 0,
    lost: 0,
    duplicates: 0,
  };
}
