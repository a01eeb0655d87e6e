// Rewrites README's configuration table and .env.example from the variable declarations in
// src/config/ (src/config/config-docs.ts renders them). Run after `npm run build`:
//
//   npm run docs:config

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const { renderEnvExample, withConfigTable } = await import(join(root, 'dist/src/config/config-docs.js'));

const readmePath = join(root, 'README.md');
writeFileSync(readmePath, withConfigTable(readFileSync(readmePath, 'utf8')));
writeFileSync(join(root, '.env.example'), renderEnvExample());
console.log('wrote README.md (configuration table) and .env.example');
