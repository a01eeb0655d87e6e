// The commands of `shift-export`, in the order --help lists them.

import { apiCommand } from './api-command.js';
import { backfillCommand } from './backfill-command.js';
import type { Command } from './command.js';
import { demoCommand } from './demo-command.js';
import { enqueueCommand } from './enqueue-command.js';
import { runCommand } from './run-command.js';
import { sandboxCommand } from './sandbox-command.js';
import { statusCommand } from './status-command.js';
import { workerCommand } from './worker-command.js';

export const commands: readonly Command[] = [
  runCommand,
  demoCommand,
  workerCommand,
  enqueueCommand,
  statusCommand,
  backfillCommand,
  apiCommand,
  sandboxCommand,
];
