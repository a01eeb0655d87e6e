// Rewrites the configuration table of docs/configuration.md and .env.example from the variable
// declarations in src/config/ (src/config/config-docs.ts renders them). The page's prose around the
// table is kept; a missing page is written whole. Run after `npm run build`:
//
//   npm run docs:config

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const { CONFIGURATION_PAGE, configurationPage, renderEnvExample, withConfigTable } = await import(
  join(root, 'dist/src/config/config-docs.js')
);

const pagePath = join(root, CONFIGURATION_PAGE);
const page = existsSync(pagePath) ? withConfigTable(readFileSync(pagePath, 'utf8')) : configurationPage();
writeFileSync(pagePath, page);
writeFileSync(join(root, '.env.example'), renderEnvExample());
console.log(`wrote ${CONFIGURATION_PAGE} (configuration table) and .env.example`);
