// `.partial` folders left by a process that is gone. A `run` that is SIGKILLed (or a worker that
// dies, or a machine that loses power) never reaches its cleanup, and its half-written export can
// be hundreds of MB. Age alone cannot tell such a folder from one another process is still
// writing, so each owner marker names its writer (host, pid, when that process started), and the
// next export to start in the same folder removes every `.partial` folder, of any period, that
// is provably ours and whose writer ran on the same machine and is gone: no process with its pid, or that
// pid now belongs to a later process (this one). A folder of another host, or of a pid that is
// alive, is left to the age rule of the publish (staleVersionAgeMs). Never throws: an export
// does not fail over someone else's leftovers.

import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../logger.js';
import { hiddenEntryOf, ownedHiddenEntry, readOwnerMarker, THIS_PROCESS } from './local-ownership.js';

const PARTIAL_NAME = /^\.(\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2})\..+\.partial$/;

/**
 * How far apart two readings of this process's start may be and still name this process. Each
 * thread computes the start once (wall clock minus uptime): whole milliseconds against a
 * sub-millisecond uptime round either way, and a clock step moves it further. A later process
 * that got our pid started far more than this after we did.
 */
export const SAME_START_TOLERANCE_MS = 5000;

/** Whether the process that wrote a marker is certainly gone. */
export function isWriterGone(marker: Record<string, unknown>, self = THIS_PROCESS): boolean {
  const { host, pid, process_started_at: startedAt } = marker;
  if (host !== self.host || typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === self.pid) {
    // Another export of this very process (an export thread of the worker) is not gone.
    return typeof startedAt !== 'number' || Math.abs(startedAt - self.startedAt) > SAME_START_TOLERANCE_MS;
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists (another user's); only ESRCH says it does not.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Removes the `.partial` folders in `dir` whose writer on the same machine is gone; returns their names. */
export async function sweepDeadPartials(dir: string, logger: Logger): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const key = PARTIAL_NAME.exec(name)?.[1];
    if (key === undefined) continue;
    const entry = hiddenEntryOf(name, key);
    if (entry?.kind !== 'partial') continue;
    try {
      const marker = await readOwnerMarker(join(dir, name));
      if (marker === undefined || !isWriterGone(marker)) continue;
      if ((await ownedHiddenEntry(dir, name, key)) === undefined) continue;
      await rm(join(dir, name), { recursive: true, force: true });
      removed.push(name);
      logger.info(
        { path: join(dir, name), pid: marker['pid'] },
        'removed the unfinished export of a process that is gone',
      );
    } catch (error) {
      logger.warn({ err: error, path: join(dir, name) }, 'could not remove an unfinished export');
    }
  }
  return removed;
}
