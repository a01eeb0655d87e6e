// Everything the suite produces that a secret could leak into: child-process output, captured log
// lines, Redis dumps, and every export folder. Scenarios write under one root per run; the security
// sweep (run by the global teardown) greps it all for the secrets the scenarios declared.

import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';

/** The WFM bearer token every scenario's sandbox accepts: distinctive, so a grep finds any leak. */
export const WFM_SECRET_TOKEN = 'wfm-token-7f3a9c1e-do-not-leak';

function root(): string {
  const file = process.env['RELIABILITY_RESULTS'];
  if (file === undefined || file === '') throw new Error('RELIABILITY_RESULTS is not set');
  const dir = `${file}.evidence`;
  mkdirSync(join(dir, 'text'), { recursive: true });
  mkdirSync(join(dir, 'files'), { recursive: true });
  return dir;
}

/** Keeps text (stderr of a child, log lines, a Redis dump) for the sweep. */
export function keepText(name: string, text: string): void {
  appendFileSync(join(root(), 'text', `${name.replace(/[^\w.-]+/g, '_')}.txt`), `${text}\n`);
}

/** A fresh folder for an export destination, swept at the end. */
export function evidenceFolder(prefix: string): string {
  return mkdtempSync(join(root(), 'files', `${prefix}-`));
}

/** Declares a secret that must appear nowhere in the evidence. */
export function declareSecret(secret: string): void {
  appendFileSync(join(root(), 'secrets'), `${secret}\n`);
}

function* filesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

export interface SecretSweep {
  readonly files: number;
  readonly bytes: number;
  readonly secrets: number;
  readonly leaks: readonly string[];
}

/** Greps every kept text and file under `dir` (an evidence root) for every declared secret. */
export function sweepSecrets(dir: string): SecretSweep {
  const secretsFile = join(dir, 'secrets');
  const secrets = [
    WFM_SECRET_TOKEN,
    ...readFileSafe(secretsFile)
      .split('\n')
      .filter((s) => s !== ''),
  ];
  const leaks: string[] = [];
  let files = 0;
  if (!existsSync(dir)) return { files: 0, bytes: 0, secrets: new Set(secrets).size, leaks };
  let bytes = 0;
  for (const path of filesUnder(dir)) {
    if (path === secretsFile) continue;
    const content = readFileSync(path);
    files++;
    bytes += statSync(path).size;
    for (const secret of secrets)
      if (content.includes(secret)) leaks.push(`${secret.slice(0, 6)}… in ${path}`);
  }
  return { files, bytes, secrets: new Set(secrets).size, leaks };
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
