// docker-compose.yml, the Dockerfile and .dockerignore as an operator meets them: `cp .env.example
// .env && docker-compose config` must render a working, production-shaped installation — health
// checks, start order by health and completion, pinned images, ports on loopback, secrets only as
// files. The rendering is docker-compose's own (the Debian package; its python3 has PyYAML, which
// turns the rendered YAML into JSON); without docker-compose those checks are skipped, the
// file-level ones still run.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSecretName } from '../src/redact-secrets.js';

const ROOT = new URL('..', import.meta.url).pathname;
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const compose = read('docker-compose.yml');
const envExample = read('.env.example');

/** The variables a .env line sets, unquoted as docker-compose and a shell read them. */
function envFileValues(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match?.[1] === undefined || match[2] === undefined) continue;
    values.set(match[1], match[2].replace(/^"(.*)"$/, '$1'));
  }
  return values;
}

/** Every `${NAME:-default}` docker-compose.yml takes from .env, with its default. */
function interpolated(text: string): Map<string, string> {
  const found = new Map<string, string>();
  const yaml = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  for (const match of yaml.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g)) {
    found.set(match[1] ?? '', match[2] ?? '');
  }
  return found;
}

describe('docker-compose.yml and .env.example', () => {
  it('takes from .env only variables that .env.example leaves unset or sets to the same default', () => {
    const example = envFileValues(envExample);
    const names = interpolated(compose);
    expect(names.size).toBeGreaterThan(0);
    for (const [name, composeDefault] of names) {
      const value = example.get(name);
      if (value !== undefined) expect(`${name}=${value}`).toBe(`${name}=${composeDefault}`);
    }
    // The wiring between the containers is fixed, whatever .env says.
    for (const name of ['EXPORT_DEST', 'S3_ENDPOINT', 'S3_FORCE_PATH_STYLE', 'REDIS_URL']) {
      expect(names.has(name), `${name} is interpolated`).toBe(false);
    }
  });

  it('is described by the docker-compose section of docs/operations.md: the variables taken from .env, the images', () => {
    const page = read('docs/operations.md');
    const start = page.indexOf('\n## docker-compose\n');
    expect(start).toBeGreaterThan(0);
    const section = page.slice(start, page.indexOf('\n## ', start + 1));
    const bullet = section.slice(section.indexOf('- **`.env`:**'), section.indexOf('- **Images:**'));
    const taken = bullet.slice(bullet.indexOf('only the'));
    const named = [...taken.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]);
    expect(named.sort()).toEqual([...interpolated(compose).keys()].sort());
    for (const image of compose.matchAll(/^\s+image: (\S+)$/gm)) {
      if (image[1] !== 'shift-export:local') expect(section).toContain(image[1]);
    }
  });

  it('has no obsolete version key', () => {
    expect(compose).not.toMatch(/^version:/m);
  });
});

describe('the image', () => {
  it('declares a HEALTHCHECK that runs the probe the image ships', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\\\n\s+CMD \["node", "bin\/healthcheck\.js"/m);
    expect(existsSync(join(ROOT, 'bin/healthcheck.js'))).toBe(true);
  });

  it('keeps node_modules, git, test data and secrets out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'));
    for (const entry of ['node_modules', '.git', 'dist', 'test', '.env', 'compose']) {
      expect(ignored).toContain(entry);
    }
    // What the Dockerfile copies must stay in the context.
    for (const copied of ['src', 'jobs', 'bench', 'bin', 'stubs', 'packages', 'package.json']) {
      expect(ignored).not.toContain(copied);
    }
  });
});

function dockerComposeAvailable(): boolean {
  try {
    execFileSync('docker-compose', ['version'], { stdio: 'ignore' });
    execFileSync('python3', ['-c', 'import yaml'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

interface Service {
  image?: string;
  environment?: Record<string, string>;
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
  ports?: (string | { host_ip?: string; published?: string | number })[];
  secrets?: { source: string }[];
  command?: string[];
}

interface Rendered {
  services: Record<string, Service>;
  secrets: Record<string, { file: string }>;
}

/** `docker-compose config` with .env copied from .env.example, in a clean environment, as JSON. */
function renderWithExampleEnv(): Rendered {
  const dir = mkdtempSync(join(tmpdir(), 'compose-'));
  const envFile = join(dir, '.env');
  let yaml: string;
  try {
    writeFileSync(envFile, envExample);
    yaml = execFileSync('docker-compose', ['-f', 'docker-compose.yml', '--env-file', envFile, 'config'], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
      encoding: 'utf8',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const json = execFileSync(
    'python3',
    ['-c', 'import sys, json, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'],
    { input: yaml, encoding: 'utf8' },
  );
  return JSON.parse(json) as Rendered;
}

const composeAvailable = dockerComposeAvailable();

describe.skipIf(!composeAvailable)('cp .env.example .env && docker-compose config', () => {
  // vitest collects a skipped describe too: render only where docker-compose is there to run.
  const rendered: Rendered = composeAvailable ? renderWithExampleEnv() : { services: {}, secrets: {} };
  const services = Object.entries(rendered.services);
  const shiftExport = services.filter(
    ([, s]) => s.image === 'shift-export:local' && s.command?.[0] !== 'sandbox',
  );

  it('keeps the containers wired to each other: S3 path style on MinIO, exports to the bucket', () => {
    expect(shiftExport.map(([name]) => name).sort()).toEqual(['api', 'worker-1', 'worker-2']);
    for (const [, service] of shiftExport) {
      expect(service.environment).toMatchObject({
        EXPORT_DEST: 's3://shift-exports/exports',
        S3_ENDPOINT: 'http://minio:9000',
        S3_FORCE_PATH_STYLE: 'true',
        S3_PUBLIC_ENDPOINT: 'http://localhost:9000',
        REDIS_URL: 'redis://redis:6379',
      });
    }
  });

  it('gives every long-running service a health check', () => {
    for (const [name, service] of services) {
      if (name === 'minio-init') continue;
      expect(service.healthcheck?.test?.length ?? 0, `${name} has a health check`).toBeGreaterThan(0);
      expect(service.healthcheck?.disable, name).not.toBe(true);
    }
  });

  it('starts the API and the workers once Redis is healthy and the bucket exists', () => {
    for (const name of ['api', 'worker-1', 'worker-2']) {
      expect(rendered.services[name]?.depends_on).toMatchObject({
        redis: { condition: 'service_healthy' },
        'minio-init': { condition: 'service_completed_successfully' },
      });
    }
    expect(rendered.services['minio-init']?.depends_on).toEqual({ minio: { condition: 'service_healthy' } });
  });

  it('pins every image it pulls to a release tag', () => {
    for (const [name, service] of services) {
      const image = service.image ?? '';
      expect(image, name).toMatch(/:[^:/]+$/);
      expect(image, name).not.toMatch(/:latest$/);
    }
    expect(rendered.services['minio']?.image).toMatch(/^minio\/minio:RELEASE\.\d{4}-/);
    expect(rendered.services['minio-init']?.image).toMatch(/^minio\/mc:RELEASE\.\d{4}-/);
  });

  it('publishes ports on 127.0.0.1 only, including the S3 port presigned downloads need', () => {
    const published: string[] = [];
    for (const [name, service] of services) {
      for (const port of service.ports ?? []) {
        const text = typeof port === 'string' ? port : `${port.host_ip ?? ''}:${port.published ?? ''}`;
        expect(text, name).toMatch(/^127\.0\.0\.1:/);
        published.push(text);
      }
    }
    expect(published.some((p) => p.startsWith('127.0.0.1:9000:'))).toBe(true);
    expect(published.some((p) => p.startsWith('127.0.0.1:3000:'))).toBe(true);
  });

  it('passes no secret in plain environment: every secret is a file under /run/secrets', () => {
    const secretValues = Object.values(rendered.secrets).map((s) => readFileSync(s.file, 'utf8').trim());
    expect(secretValues.length).toBeGreaterThan(0);
    for (const [name, service] of services) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (isSecretName(key)) expect(key, `${name}: ${key}`).toMatch(/_FILE$/);
        for (const secret of secretValues) expect(String(value), `${name}: ${key}`).not.toContain(secret);
      }
      for (const { source } of service.secrets ?? []) expect(rendered.secrets[source], name).toBeDefined();
    }
    const api = rendered.services['api']?.environment ?? {};
    expect(api['API_TOKENS_FILE']).toBe('/run/secrets/api_tokens');
    expect(api['WFM_TOKEN_FILE']).toBe('/run/secrets/wfm_token');
    expect(api['S3_SECRET_ACCESS_KEY_FILE']).toBe('/run/secrets/minio_root_password');
  });
});
