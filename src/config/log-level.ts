// The logging group of settings: pino's level (LOG_LEVEL).

import { z } from 'zod';
import { LOG_LEVELS, type LogLevel } from '../logger.js';
import { envVar } from './env-var.js';
import { loadDeclared, type Env } from './load-config.js';

export const logVariables = {
  level: envVar(
    'LOG_LEVEL',
    z.enum(LOG_LEVELS).default('info'),
    'pino level: fatal, error, warn, info, debug, trace or silent.',
  ),
};

export function loadLogLevel(env: Env): LogLevel {
  return loadDeclared(env, logVariables).level;
}
