#!/usr/bin/env node
// The installed entry point. `npm ci` builds dist/ through the `prepare` script.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('shift-export: not built yet; run `npm ci` (or `npm run build`) in the repository first');
  process.exit(1);
}
const { runCli } = await import(entry.href);
runCli();
