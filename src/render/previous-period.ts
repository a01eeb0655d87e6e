// The definition's previous period as already published beside this one: the first of
// previousPeriods(period) whose manifest the destination holds. Read by the delivery e-mail and by
// the export (the workbook's Overview), so both compare with the same figures, and neither reads
// the upstream a second time nor keeps state outside the destination. Here rather than in
// destinations/ or changes/ because both the notify and the export rooms may import render/, and the
// manifest's schema is here; the destination is only an interface that reads a period's manifest.

import { previousPeriods, type Period } from '../domain/period.js';
import { parseManifest, type Manifest } from './manifest.js';

/** The previous period of a definition, as published, with its manifest. */
export interface PreviousPeriod {
  readonly period: Period;
  readonly manifest: Manifest;
}

/** Where published manifests are read (a Destination): the text, or undefined when there is none. */
export interface PublishedManifests {
  readManifest(period: Period): Promise<string | undefined>;
}

/**
 * The previous period's manifest, most likely candidate first; undefined when none is published
 * (the definition's first export). Throws when a manifest cannot be read or is not a manifest: the
 * caller decides what a comparison is worth.
 */
export async function findPreviousPeriod(
  published: PublishedManifests,
  period: Period,
): Promise<PreviousPeriod | undefined> {
  for (const candidate of previousPeriods(period)) {
    const text = await published.readManifest(candidate);
    if (text !== undefined) return { period: candidate, manifest: parseManifest(text) };
  }
  return undefined;
}
