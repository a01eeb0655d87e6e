// The commands of `shift-export`, in the order --help lists them. `worker` is handed in: it is the
// worker process's entry and lives in jobs/ (jobs/worker-command.ts), which src/ never imports;
// the entry point (bin/shift-export.js) puts the two together.

import { apiCommand } from './api-command.js';
import { backfillCommand } from './backfill-command.js';
import type { Command } from './command.js';
import { demoCommand } from './demo-command.js';
import { enqueueCommand } from './enqueue-command.js';
import { exportsCommand } from './exports-command.js';
import { runCommand } from './run-command.js';
import { sandboxCommand } from './sandbox-command.js';
import { statusCommand } from './status-command.js';

export function cliCommands(workerCommand: Command): readonly Command[] {
  return [
    runCommand,
    demoCommand,
    workerCommand,
    enqueueCommand,
    statusCommand,
    backfillCommand,
    exportsCommand,
    apiCommand,
    sandboxCommand,
  ];
}
