import { describe, expect, it } from 'vitest';
import { definitionDelivery, definitionNameOf } from '../../jobs/definition-delivery.js';
import type { ExportDefinition, ExportDefinitions } from '../../src/definitions/export-definition.js';
import { JOB_NAMES } from '../../src/queue/queue-names.js';

function definition(name: string, deliver: ExportDefinition['deliver']): ExportDefinition {
  return { name, deliver } as ExportDefinition;
}

const managers = { to: 'division-managers', cc: [], attach: ['xlsx'], when: 'changed', lang: 'ru' } as const;
const fixed = { to: ['hq@example.com'], cc: [], attach: ['xlsx'], when: 'always', lang: 'en' } as const;

function set(...definitions: ExportDefinition[]): ExportDefinitions {
  return { source: { kind: 'file', file: 'exports.yaml' }, definitions };
}

const exportJob = (data: Record<string, unknown>) => ({ name: JOB_NAMES.exportPeriod, data });
const day = { from: '2024-03-30', to: '2024-03-30', formats: ['csv'] };

describe('definitionDelivery', () => {
  it("finds an export job's deliver.email in the definitions in force, as they are now", () => {
    let current = set(
      definition('weekly', { email: managers, webhooks: [] }),
      definition('hq', { email: fixed, webhooks: ['https://hooks.example.com/a'] }),
    );
    const delivery = definitionDelivery(() => current);
    expect(delivery.mailSettingsOf(exportJob({ ...day, export: 'weekly' }))).toEqual({
      definition: 'weekly',
      email: managers,
    });
    expect(delivery.webhooksOf('hq')).toEqual(['https://hooks.example.com/a']);
    expect(delivery.allWebhooks()).toEqual(['https://hooks.example.com/a']);
    // A SIGHUP replaced the file: the job's definition is read again, and one no longer there sends nothing.
    current = set(definition('hq', { email: undefined, webhooks: [] }));
    expect(delivery.mailSettingsOf(exportJob({ ...day, export: 'weekly' }))).toBeUndefined();
    expect(delivery.mailSettingsOf(exportJob({ ...day, export: 'hq' }))).toBeUndefined();
    expect(delivery.webhooksOf('hq')).toEqual([]);
    expect(delivery.allWebhooks()).toEqual([]);
  });

  it('names no definition for a job of none, another kind of job, or data that does not parse', () => {
    expect(definitionNameOf(exportJob(day))).toBeUndefined();
    expect(definitionNameOf({ name: JOB_NAMES.backfill, data: { ...day, export: 'hq' } })).toBeUndefined();
    expect(definitionNameOf(exportJob({ ...day, export: 'hq', token: 'x' }))).toBeUndefined();
    expect(definitionNameOf(exportJob({ ...day, export: 'hq' }))).toBe('hq');
    expect(definitionDelivery(() => set()).webhooksOf(undefined)).toEqual([]);
  });
});
