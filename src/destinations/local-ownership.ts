// What in a local export folder the exporter created, and how it knows: it renames, replaces or
// deletes only entries it can prove are its own, and leaves everything else as it is.
//
//   DIR/<from>_<to>                       ours when it is a symlink to `.<from>_<to>.<exportId>`
//                                         that is one of our version folders (or points nowhere)
//   DIR/.<from>_<to>.<exportId>[.partial]/ ours when it is a real folder holding our owner marker
//   DIR/.<from>_<to>.<exportId>.link       ours when it is a symlink to `.<from>_<to>.<exportId>`
//
// The owner marker is a small file, `.shift-export`, written into every `.partial` folder when an
// export begins (so it travels with the folder into its version name), naming the period and the
// export id, and the process writing it (host, pid and when that process started, so that a later
// start can tell a `.partial` folder of a process that is gone: dead-partials.ts):
// `{"written_by":"shift-export","period":"<from>_<to>","export_id":"<id>","host":…,"pid":…,
// "process_started_at":…}`. Version
// folders published before the marker existed prove it with their manifest.json instead: its
// export_id and period name the folder. A folder with our name but neither, or with a marker or
// manifest that names another folder, is not ours.

import { constants, type Stats } from 'node:fs';
import { lstat, open, readlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { TOOL_NAME } from '../version.js';
import { ForeignEntryError } from './destination-errors.js';
import { isExportId, MANIFEST_NAME } from './safe-names.js';

const OWNER_MARKER_NAME = '.shift-export';

/** Markers are a few dozen bytes, manifests a few KiB; anything longer is not one of ours. */
const MAX_MARKER_BYTES = 1024;
const MAX_MANIFEST_BYTES = 1024 * 1024;

interface OwnerMarker {
  readonly written_by: string;
  readonly period: string;
  readonly export_id: string;
  readonly host: string;
  readonly pid: number;
  /** Epoch ms when the writing process started: tells it from a later process given the same pid. */
  readonly process_started_at: number;
}

/** This process as markers name it. Computed once, so every marker of one process says the same. */
export const THIS_PROCESS = Object.freeze({
  host: hostname(),
  pid: process.pid,
  startedAt: Math.round(Date.now() - process.uptime() * 1000),
});

/** Writes the owner marker into `folder` (new file, fsync'ed: a crash leaves it whole or absent). */
export async function writeOwnerMarker(folder: string, periodKey: string, exportId: string): Promise<void> {
  const marker: OwnerMarker = {
    written_by: TOOL_NAME,
    period: periodKey,
    export_id: exportId,
    host: THIS_PROCESS.host,
    pid: THIS_PROCESS.pid,
    process_started_at: THIS_PROCESS.startedAt,
  };
  const handle = await open(join(folder, OWNER_MARKER_NAME), 'wx', 0o644);
  try {
    await handle.writeFile(`${JSON.stringify(marker)}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A hidden entry of a period, by its name: what it would be if it were ours. */
export type HiddenEntry =
  | { readonly kind: 'version'; readonly exportId: string }
  | { readonly kind: 'partial'; readonly exportId: string }
  | { readonly kind: 'link'; readonly exportId: string };

/** Reads `.<key>.<id>`, `.<key>.<id>.partial`, `.<key>.<id>.link`; undefined for any other name. */
export function hiddenEntryOf(name: string, periodKey: string): HiddenEntry | undefined {
  const prefix = `.${periodKey}.`;
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  const dot = rest.indexOf('.');
  const exportId = dot === -1 ? rest : rest.slice(0, dot);
  if (!isExportId(exportId)) return undefined;
  const suffix = dot === -1 ? '' : rest.slice(dot);
  if (suffix === '') return { kind: 'version', exportId };
  if (suffix === '.partial') return { kind: 'partial', exportId };
  if (suffix === '.link') return { kind: 'link', exportId };
  return undefined;
}

/** The JSON of a small regular file; undefined when it is missing, a symlink, too long or not JSON. */
async function readSmallJson(path: string, maxBytes: number): Promise<Record<string, unknown> | undefined> {
  try {
    // O_NOFOLLOW: a symlink named like our file proves nothing.
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const buffer = Buffer.alloc(maxBytes + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead > maxBytes) return undefined;
      const value: unknown = JSON.parse(buffer.subarray(0, bytesRead).toString('utf8'));
      return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/** The name of the version folder of `exportId`, which our links point at. */
export function versionName(periodKey: string, exportId: string): string {
  return `.${periodKey}.${exportId}`;
}

/** The owner marker in `folder`, as read (undefined when missing or not JSON); check it with ownedHiddenEntry. */
export function readOwnerMarker(folder: string): Promise<Record<string, unknown> | undefined> {
  return readSmallJson(join(folder, OWNER_MARKER_NAME), MAX_MARKER_BYTES);
}

/**
 * The lstat of `DIR/name` when it is a hidden entry of this period that we created: a link to its
 * version, or a real folder holding our marker for this period and id or (published before
 * markers existed) our manifest naming them. Otherwise (or when gone) undefined.
 */
export async function ownedHiddenEntry(
  dir: string,
  name: string,
  periodKey: string,
): Promise<Stats | undefined> {
  const entry = hiddenEntryOf(name, periodKey);
  const path = join(dir, name);
  const stats = entry === undefined ? undefined : await lstat(path).catch(() => undefined);
  if (entry === undefined || stats === undefined) return undefined;
  if (entry.kind === 'link') {
    const ours =
      stats.isSymbolicLink() &&
      (await readlink(path).catch(() => undefined)) === versionName(periodKey, entry.exportId);
    return ours ? stats : undefined;
  }
  if (!stats.isDirectory()) return undefined;
  const marker = await readSmallJson(join(path, OWNER_MARKER_NAME), MAX_MARKER_BYTES);
  if (marker !== undefined) {
    const ours =
      marker['written_by'] === TOOL_NAME &&
      marker['period'] === periodKey &&
      marker['export_id'] === entry.exportId;
    return ours ? stats : undefined;
  }
  const manifest = await readSmallJson(join(path, MANIFEST_NAME), MAX_MANIFEST_BYTES);
  const period = manifest?.['period'] as { from?: unknown; to?: unknown } | undefined;
  const ours =
    manifest?.['export_id'] === entry.exportId &&
    typeof period === 'object' &&
    `${String(period.from)}_${String(period.to)}` === periodKey;
  return ours ? stats : undefined;
}

/** What is at `DIR/<from>_<to>` now. */
export type PeriodLink =
  | { readonly kind: 'none' }
  /** Our link; `version` is the folder it points at (possibly gone). */
  | { readonly kind: 'ours'; readonly version: string }
  | { readonly kind: 'foreign'; readonly what: string };

async function inspectPeriodLink(dir: string, periodKey: string): Promise<PeriodLink> {
  const path = join(dir, periodKey);
  let stats;
  try {
    stats = await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'none' };
    throw error;
  }
  if (stats.isDirectory()) return { kind: 'foreign', what: 'a real folder' };
  if (!stats.isSymbolicLink()) return { kind: 'foreign', what: stats.isFile() ? 'a file' : 'a special file' };
  const target = await readlink(path);
  const entry = hiddenEntryOf(target, periodKey);
  if (entry?.kind !== 'version') return { kind: 'foreign', what: 'a symlink to somewhere else' };
  // A link of ours whose version is gone points nowhere: replacing it loses nothing.
  const gone = (await lstat(join(dir, target)).catch(() => undefined)) === undefined;
  if (!gone && (await ownedHiddenEntry(dir, target, periodKey)) === undefined)
    return { kind: 'foreign', what: 'a symlink to a folder without its owner marker' };
  return { kind: 'ours', version: target };
}

/** Throws ForeignEntryError when `DIR/<from>_<to>` is there and not ours; otherwise says what is there. */
export async function assertPeriodLinkOurs(dir: string, periodKey: string): Promise<PeriodLink> {
  const link = await inspectPeriodLink(dir, periodKey);
  if (link.kind !== 'foreign') return link;
  const path = join(dir, periodKey);
  throw new ForeignEntryError(
    `${path} is ${link.what}, not an export link of shift-export: it is left untouched and nothing is published there; move it away or choose another EXPORT_DEST`,
    { path },
  );
}
