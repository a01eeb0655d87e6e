// Export ids name one attempt of one export: sortable by time, safe in folder names, S3 keys and
// BullMQ ids (no ":"), unique across workers.

import { randomBytes } from 'node:crypto';

export function newExportId(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}
