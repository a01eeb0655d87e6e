// Owns the two documents written from the variable declarations in src/config/: README's
// configuration table (between its config-table markers) and .env.example. `npm run docs:config`
// (scripts/generate-config-docs.mjs) writes them; test/config.test.ts fails when they are stale.

import { CONFIG_GROUPS } from './config-groups.js';
import { docOf, variablesOf } from './env-var.js';

export const CONFIG_TABLE_START = '<!-- config-table:start -->';
export const CONFIG_TABLE_END = '<!-- config-table:end -->';
export const REGENERATE_COMMAND = 'npm run docs:config';

const ENV_EXAMPLE_HEADER = [
  '# shift-export configuration for a run without Docker. Every variable is optional unless noted; the values',
  '# shown are the defaults. shift-export reads the environment, not this file: `set -a; . ./.env; set +a`.',
  '# docker-compose reads .env too, but only the ${VARIABLES} docker-compose.yml names (their defaults equal',
  '# these); it wires its containers itself and takes secrets from files (compose/dev-secrets/).',
  `# Written from the declarations in src/config/ by \`${REGENERATE_COMMAND}\`: edit them, not this file.`,
];

const documented = () =>
  CONFIG_GROUPS.map((group) => ({
    heading: group.heading,
    variables: variablesOf(group.variables).map((v) => ({ name: v.name, ...docOf(v) })),
  }));

/** README's configuration table: one row per variable, in declaration order. */
export function renderConfigTable(): string {
  const rows = documented().flatMap((slice) =>
    slice.variables.map((v) => `| \`${v.name}\` | \`${v.default}\` | ${v.description} |`),
  );
  return ['| Variable | Default | What it does |', '|---|---|---|', ...rows].join('\n');
}

/** `readme` with the text between the config-table markers replaced by the current table. */
export function withConfigTable(readme: string): string {
  const start = readme.indexOf(CONFIG_TABLE_START);
  const end = readme.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) {
    throw new Error(`README.md has no ${CONFIG_TABLE_START} … ${CONFIG_TABLE_END} section`);
  }
  const before = readme.slice(0, start + CONFIG_TABLE_START.length);
  return `${before}\n${renderConfigTable()}\n${readme.slice(end)}`;
}

/** .env.example: every variable under its slice's heading, set to its default or commented out. */
export function renderEnvExample(): string {
  const lines = [...ENV_EXAMPLE_HEADER];
  for (const slice of documented()) {
    lines.push('', `# --- ${slice.heading} ---`);
    for (const v of slice.variables) {
      lines.push('', `# ${v.description}`);
      lines.push(v.value === undefined ? `# ${v.name}=` : `${v.name}=${envFileValue(v.value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A value as a .env line holds it: quoted when a shell or docker-compose could misread it. */
function envFileValue(value: string): string {
  return /^[\w.,:/@+-]*$/.test(value) ? value : `"${value}"`;
}
