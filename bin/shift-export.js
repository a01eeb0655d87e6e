#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 node --heap-growing-percent=100 --expose-gc --no-maglev --max-semi-space-size=2
// The installed entry point. `npm ci` builds dist/ through the `prepare` script.
// The flag on the line above (V8 takes it on the command line, not in NODE_OPTIONS) runs a full
// collection once the old generation has doubled instead of letting it grow 4x: the export's
// promoted garbage filled that slack (figures: docs/performance.md). The Docker image's ENTRYPOINT
// gives it too; `node bin/shift-export.js` without it runs, with more memory.
// MALLOC_MMAP_THRESHOLD_ fixes malloc's mmap threshold at 128 KiB (glibc's own short name for the
// tunable glibc.malloc.mmap_threshold, which keeps this line under the 127 bytes older kernels read): every export runs on new threads, and
// with the threshold glibc raises on its own, their large blocks came from per-thread arenas that
// kept the memory after the threads ended, so a long-running worker grew (docs/performance.md, the
// soak). The Docker image sets the same variable.
// --max-semi-space-size=2 gives every thread of the process the young generation the export
// threads are started with (answering-thread.ts; V8 lets the flag override a thread's own limit,
// so it must stay as small): Node 20's default let the export's own thread grow 16 MB semi-spaces,
// which a 3M-row CSV export whose every row is its own user paid with ~30 MB of peak RSS
// (2026-11-26 on 800eba9: 302–316 MB without, 272–279 with at 4). 2 against 4 (2026-11-29 on
// 24c4f22, 300k rows, pairs): 10–45 MB less on Node 24 and 13–22 MB less on Node 20 for every line,
// the CPU within the pairs' noise; 1 saved Node 24 ~8 MB more for 5–19% more CPU. The Docker
// image sets it in NODE_OPTIONS.
// --no-maglev leaves out V8's middle compiler, on by default since Node 22 (Node 20 runs without it):
// its code and its compilations' malloc'ed memory were most of what Node 24 held above Node 20. On
// Node 24 (2026-11-29 on a7928d1, 300k rows, pairs in turns) every export line peaked 10–30 MB lower
// (csv+xlsx 247–260 → 234–252 MB, Parquet 232–258 → 218–225), for 0–6% more CPU (the median of
// eight csv+xlsx pairs the same; Parquet +6%). The Docker image's ENTRYPOINT gives it too.
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
