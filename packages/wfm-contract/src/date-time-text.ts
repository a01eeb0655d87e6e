// The spec's two date-time texts: LocalDateTime (ISO 8601 without a zone, optional fraction up to
// 9 digits) and Timestamp (with a Z), as patterns and as the zod schemas the resources use.
// local-date-time.ts reads LocalDateTime text without a regex on the hot path; its test
// checks it against LOCAL_DATE_TIME_PATTERN.

import { z } from 'zod';

export const LOCAL_DATE_TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;
export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;

export const localDateTimeSchema = z
  .string()
  .regex(LOCAL_DATE_TIME_PATTERN, 'expected an ISO 8601 date-time without a zone, e.g. 2024-05-01T08:30:00');

export const timestampSchema = z
  .string()
  .regex(TIMESTAMP_PATTERN, 'expected an ISO 8601 timestamp with a Z, e.g. 2024-05-01T08:30:00.000Z');
