// Owns the two documents written from the variable declarations in src/config/: the table of
// docs/configuration.md (between its config-table markers) and .env.example. `npm run docs:config`
// (scripts/generate-config-docs.mjs) writes them; test/config.test.ts fails when they are stale.
// The page's prose around the table is written by hand; configurationPage() is only its first draft,
// for when the page does not exist yet.

import { CONFIG_GROUPS } from './config-groups.js';
import { docOf, variablesOf } from './env-var.js';

export const CONFIG_TABLE_START = '<!-- config-table:start -->';
export const CONFIG_TABLE_END = '<!-- config-table:end -->';
export const REGENERATE_COMMAND = 'npm run docs:config';
/** The page that holds the table, from the repository's root. */
export const CONFIGURATION_PAGE = 'docs/configuration.md';

const ENV_EXAMPLE_HEADER = [
  '# shift-export configuration for a run without Docker. Every variable is optional unless noted; the values',
  '# shown are the defaults. shift-export reads the environment, not this file: `set -a; . ./.env; set +a`.',
  '# docker-compose reads .env too, but only the ${VARIABLES} docker-compose.yml names (their defaults equal',
  '# these); it wires its containers itself and takes secrets from files (compose/dev-secrets/).',
  `# Written from the declarations in src/config/ by \`${REGENERATE_COMMAND}\`: edit them, not this file.`,
];

const PAGE_INTRO = `# Configuration

Every setting of shift-export is an environment variable. A command reads the groups of settings it
uses when it starts (the S3 group when a destination is on S3), checks them and keeps them frozen; it
reads no others (\`run\` does not need \`API_TOKENS\`, \`api\` does not need \`WFM_BASE_URL\`). An
empty value counts as unset and the default applies, except for \`WFM_WINDOW_QUERY\`, whose empty
value means "no filter". shift-export reads the environment, not a file: \`.env.example\` lists every
variable with its default, for \`set -a; . ./.env; set +a\` or docker-compose.

**Secrets from files.** A secret may come from a file (a compose or Kubernetes secret) rather than
the environment: \`WFM_TOKEN_FILE\`, \`API_TOKENS_FILE\` (one token per line, or comma-separated),
\`S3_ACCESS_KEY_ID_FILE\` with \`S3_SECRET_ACCESS_KEY_FILE\`, \`REDIS_PASSWORD_FILE\` and
\`REDIS_SENTINEL_PASSWORD_FILE\` name it; \`REDIS_TLS_CA_FILE\` names a CA the same way. Whitespace
around the file's text is ignored; a token, key or password with a line break inside is refused.
\`WFM_TOKEN\` and \`API_TOKENS\`, when set, win over their \`*_FILE\`. A file that cannot be read or
is empty is reported by its variable, never by its path (the path may be a secret pasted into the
wrong variable).

**One line per error.** A bad value stops the command with exit code 2 and one line that names the
variable, e.g. \`shift-export run: CONFIG_INVALID: WFM_BASE_URL is invalid ("not a url"): …\`. That
line never shows a secret: the value of a variable whose name says secret (\`TOKEN\`, \`PASSWORD\`,
\`SECRET\`, \`KEY\`, \`CREDENTIAL\`) is shown as \`***\`; any other value loses URL userinfo
(\`redis://***@host\`), a URL's query and fragment, and \`password=\`-like parameters.

Each variable is declared once, in \`src/config/\` (one file per group of settings: its name, its zod
schema with the default, its description). The table below and \`.env.example\` are written from
those declarations by \`${REGENERATE_COMMAND}\`; \`test/config.test.ts\` fails when either is stale.
`;

const documented = () =>
  CONFIG_GROUPS.map((group) => ({
    heading: group.heading,
    variables: variablesOf(group.variables).map((v) => ({ name: v.name, ...docOf(v) })),
  }));

/** The configuration table: one row per variable, in declaration order. */
export function renderConfigTable(): string {
  const rows = documented().flatMap((group) =>
    group.variables.map((v) => `| \`${v.name}\` | \`${v.default}\` | ${v.description} |`),
  );
  return ['| Variable | Default | What it does |', '|---|---|---|', ...rows].join('\n');
}

/** `page` with the text between the config-table markers replaced by the current table. */
export function withConfigTable(page: string): string {
  const start = page.indexOf(CONFIG_TABLE_START);
  const end = page.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) {
    throw new Error(`${CONFIGURATION_PAGE} has no ${CONFIG_TABLE_START} … ${CONFIG_TABLE_END} section`);
  }
  const before = page.slice(0, start + CONFIG_TABLE_START.length);
  return `${before}\n${renderConfigTable()}\n${page.slice(end)}`;
}

/** A new docs/configuration.md: how settings are read, then the table between its markers. */
export function configurationPage(): string {
  return `${PAGE_INTRO}\n## Variables\n\n${CONFIG_TABLE_START}\n${renderConfigTable()}\n${CONFIG_TABLE_END}\n`;
}

/** .env.example: every variable under its group's heading, set to its default or commented out. */
export function renderEnvExample(): string {
  const lines = [...ENV_EXAMPLE_HEADER];
  for (const group of documented()) {
    lines.push('', `# --- ${group.heading} ---`);
    for (const v of group.variables) {
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
