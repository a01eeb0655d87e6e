// The tool's version, recorded in every manifest. Read from package.json once.

import { readFileSync } from 'node:fs';

function readVersion(): string {
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'shift-export' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // try the next candidate: src/ and dist/src/ sit at different depths
    }
  }
  return '0.0.0-unknown';
}

export const TOOL_NAME = 'shift-export';
export const TOOL_VERSION = readVersion();
