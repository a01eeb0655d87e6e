#!/usr/bin/env node
// The installed entry point of the sandbox (src/sandbox-cli.ts). The repository's `npm ci` builds
// dist/.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/sandbox-cli.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('wfm-sandbox: not built yet; run `npm ci` (or `npm run build`) in the repository first');
  process.exit(1);
}
const { runSandboxCli } = await import(entry.href);
process.exitCode = await runSandboxCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
