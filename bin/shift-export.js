#!/usr/bin/env -S GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072 node --heap-growing-percent=100 --expose-gc
// The installed entry point. `npm ci` builds dist/ through the `prepare` script.
// The flag on the line above (V8 takes it on the command line, not in NODE_OPTIONS) runs a full
// collection once the old generation has doubled instead of letting it grow 4x: the export's
// promoted garbage filled that slack (figures: docs/performance.md). The Docker image's ENTRYPOINT
// gives it too; `node bin/shift-export.js` without it runs, with more memory.
// GLIBC_TUNABLES fixes malloc's mmap threshold at 128 KiB: every export runs on new threads, and
// with the threshold glibc raises on its own, their large blocks came from per-thread arenas that
// kept the memory after the threads ended, so a long-running worker grew (docs/performance.md, the
// soak). The Docker image sets the same variable.
// It assembles the command table: the `worker` command lives in jobs/ with the worker, which src/
// never imports, so the CLI (src/cli) is handed it here.
import { existsSync } from 'node:fs';

const dist = new URL('../dist/', import.meta.url);
const entry = new URL('src/cli/main.js', dist);
if (!existsSync(entry)) {
  console.error('shift-export: not built yet; run `npm ci` (or `npm run build`) in the repository first');
  process.exit(1);
}
const [{ runCli }, { cliCommands }, { workerCommand }] = await Promise.all([
  import(entry.href),
  import(new URL('src/cli/commands.js', dist).href),
  import(new URL('jobs/worker-command.js', dist).href),
]);
runCli(cliCommands(workerCommand));
