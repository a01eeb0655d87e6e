// Runs once around the reliability suite: checks that redis-server is there, starts an empty
// results file, and prints the table at the end (failing the run when a row lost or duplicated
// rows, or failed, even if its test somehow passed). A run of the whole suite also writes its
// table into docs/reliability.md (reliability-doc.ts).

import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { sweepSecrets } from './evidence.js';
import { recordLatestRun } from './reliability-doc.js';
import { formatTable, readRows, type ScenarioRow } from './results.js';

export default function setup(): () => void {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('redis-server is not on PATH: install it (Debian: apt-get install -y redis-server)');
  }
  const file = process.env['RELIABILITY_RESULTS'] ?? '';
  rmSync(file, { force: true });
  const startedAt = new Date();
  return () => {
    const rows = [...readRows(file), secretSweepRow(`${file}.evidence`)];
    const bad = rows.filter((r) => !r.passed || (r.lost ?? 0) > 0 || (r.duplicates ?? 0) > 0);
    const seconds = (Date.now() - startedAt.getTime()) / 1000;
    process.stdout.write(
      `\nReliability suite: ${rows.length} scenarios, ${bad.length} failing, ${seconds.toFixed(0)} s\n\n${formatTable(rows)}\n\n`,
    );
    const notRecorded = recordLatestRun(rows, { startedAt, seconds, failing: bad.length });
    process.stdout.write(
      notRecorded === undefined
        ? 'Wrote the table into docs/reliability.md.\n'
        : `docs/reliability.md not updated: ${notRecorded}.\n`,
    );
    rmSync(file, { force: true });
    if (process.env['RELIABILITY_KEEP'] === undefined)
      rmSync(`${file}.evidence`, { recursive: true, force: true });
    if (bad.length > 0 || rows.length === 0) process.exitCode = 1;
  };
}

/** The last row: the WFM token and S3 secrets greped in every log, error, Redis dump, file and manifest. */
function secretSweepRow(evidence: string): ScenarioRow {
  const started = Date.now();
  const sweep = sweepSecrets(evidence);
  const passed = sweep.leaks.length === 0;
  return {
    group: 'security',
    scenario: 'secrets in logs, errors, Redis job records, files, manifests',
    outcome:
      sweep.leaks.length > 0
        ? `LEAKED: ${sweep.leaks.slice(0, 3).join('; ')}`
        : `${sweep.secrets} secrets found nowhere in ${sweep.files} files (${(sweep.bytes / 1024 / 1024).toFixed(0)} MB)`,
    expected: null,
    exported: null,
    lost: null,
    duplicates: null,
    ms: Date.now() - started,
    passed,
  };
}
