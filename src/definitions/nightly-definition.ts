// Owns the definition a deployment without EXPORTS_FILE runs: `nightly`, made of the settings it
// always had, so that nothing changes for it. NIGHTLY_CRON in NIGHTLY_TZ (no schedule when
// NIGHTLY_ENABLED is false: on demand only), yesterday and the LOOKBACK_DAYS days before it, each a
// period of its own, in EXPORT_FORMATS, into EXPORT_DEST itself (not EXPORT_DEST/nightly: the
// folders stay where they were), in REPORT_LANG, with no filter, no split and no delivery of its own
// (NOTIFY_WEBHOOK_URL still hears of every export, as before).

import type { ExportConfig } from '../config/export-config.js';
import type { ScheduleConfig } from '../config/schedule-config.js';
import { parseDestination } from '../destination-address.js';
import type { ExportDefinition } from './export-definition.js';

export const NIGHTLY_DEFINITION_NAME = 'nightly';

export function nightlyDefinition(
  schedule: Pick<ScheduleConfig, 'enabled' | 'cron' | 'tz' | 'lookbackDays'>,
  exportConfig: Pick<ExportConfig, 'dest' | 'formats' | 'reportLang'>,
): ExportDefinition {
  return Object.freeze({
    name: NIGHTLY_DEFINITION_NAME,
    schedule: schedule.enabled ? Object.freeze({ cron: schedule.cron, tz: schedule.tz }) : undefined,
    period: Object.freeze({ kind: 'yesterday' }),
    lookbackDays: schedule.lookbackDays,
    formats: exportConfig.formats,
    lang: exportConfig.reportLang,
    dest: exportConfig.dest,
    destination: parseDestination(exportConfig.dest),
    destIsExportDest: true,
    filter: undefined,
    split: undefined,
    deliver: undefined,
  });
}
