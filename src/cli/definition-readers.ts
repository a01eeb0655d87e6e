// The languages the managers of each `to: division-managers` definition read, as `exports check`
// shows them: the upstream's divisions read once with their managers (fields=dirs), then counted
// for each such definition (only the divisions of its filter when it names some). The check judges
// the file, so the upstream is a courtesy: not configured, or not readable within a bound, it says
// so in one line and the check's exit code stays the file's.

import type { Env } from '../config/load-config.js';
import { loadWfmConfig, requireUpstream } from '../config/wfm-config.js';
import { DIVISION_MANAGERS, type ExportDefinitions } from '../definitions/export-definition.js';
import { describeError } from '../errors.js';
import { readerLanguages, type ReaderLanguages } from '../notify/reader-languages.js';
import { oneLine } from '../one-line.js';
import { redactSecrets, secretValuesOf } from '../redact-secrets.js';
import { WfmClient } from '../wfm/wfm-client.js';

/** The longest the check waits for the upstream's divisions, retries included. */
export const READERS_READ_MS = 60_000;

export interface DefinitionReaders {
  /** By definition name: those that mail division managers, when the upstream was read. */
  readonly readers: ReadonlyMap<string, ReaderLanguages>;
  /** One line on why the managers were not counted; undefined when they were, or none are mailed. */
  readonly note: string | undefined;
}

/** The definitions' managers' languages, or why they are not shown. Never throws for the upstream. */
export async function definitionReaders(
  set: ExportDefinitions,
  env: Env,
  timeoutMs = READERS_READ_MS,
): Promise<DefinitionReaders> {
  const mailing = set.definitions.filter((d) => d.deliver?.email?.to === DIVISION_MANAGERS);
  if (mailing.length === 0) return { readers: new Map(), note: undefined };
  const names = mailing.map((d) => d.name).join(', ');
  // A malformed WFM_* setting is a configuration error like any other (exit 2); only an absent
  // upstream is the CI case, where the file is checked alone.
  const wfm = loadWfmConfig(env);
  if (wfm.baseUrl === undefined || wfm.token === undefined || wfm.token === '')
    return {
      readers: new Map(),
      note: `managers' languages: not counted, the upstream is not configured (WFM_BASE_URL and WFM_TOKEN or WFM_TOKEN_FILE); ${names} ${mailing.length === 1 ? 'mails' : 'mail'} division managers`,
    };
  const client = new WfmClient(requireUpstream(wfm));
  try {
    // Every division once, whatever the filters: one request serves every definition.
    const divisions = await client.listDivisions({
      fields: ['dirs'],
      signal: AbortSignal.timeout(timeoutMs),
    });
    const readers = new Map(
      mailing.map((d) => [d.name, readerLanguages(divisions, d.filter?.divisions, d.lang)] as const),
    );
    return { readers, note: undefined };
  } catch (error) {
    const why = oneLine(redactSecrets(describeError(error), secretValuesOf(env)));
    return {
      readers: new Map(),
      note: `managers' languages: not counted, the upstream could not be read: ${why}`,
    };
  } finally {
    await client.close();
  }
}
