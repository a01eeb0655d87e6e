// Owns reading the file a `*_FILE` variable names (WFM_TOKEN_FILE, API_TOKENS_FILE, the S3 and
// Redis password files, REDIS_TLS_CA_FILE): how a secret reaches the process from a compose or
// Kubernetes secret without sitting in the environment.

import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';

/**
 * The contents of the file a `*_FILE` variable names (a compose or Kubernetes secret, a CA), without
 * surrounding whitespace. The path is not shown in errors: a secret pasted into the variable by
 * mistake would otherwise be printed. `what` says what the file should hold, for the empty case.
 */
export function readFileNamedBy(variable: string, path: string, what?: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(
      `${variable} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): check the path it names`,
      { variable },
    );
  }
  if (text === '')
    throw new ConfigError(
      `${variable} names an empty file${what === undefined ? '' : ` (expected ${what})`}`,
      {
        variable,
      },
    );
  return text;
}
