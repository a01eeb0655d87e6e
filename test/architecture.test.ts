// The layout as a test: which room (a folder under src/, the shared top-level files of src/, or
// jobs/) may import which room and which workspace package, which rooms may not load a network,
// queue or storage library, that the packages (packages/*: the upstream's contract, the sandbox)
// stand on their own, and no import circle between files. Imports are read as text (`from '…'`,
// `import '…'`, `import('…')`, type-only imports included: a type ties a room to another as much as
// a value does).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

type Room =
  | 'shared'
  | 'config'
  | 'domain'
  | 'wfm'
  | 'i18n'
  | 'pipeline'
  | 'render'
  | 'destinations'
  | 'changes'
  | 'definitions'
  | 'export'
  | 'queue'
  | 'api'
  | 'notify'
  | 'cli'
  | 'jobs';

/**
 * Who may import whom (docs/architecture.md): the entry rooms (jobs, cli) on top, then the use case
 * (export), its stages and ends, and domain at the bottom; the shared top-level files of src/
 * (errors, logger, one-line, version…) import only each other. A room may always import itself.
 * Below them all lies the upstream's contract, a package (PACKAGE_USERS).
 */
const MAY_IMPORT: Readonly<Record<Room, readonly Room[]>> = {
  shared: [],
  // The settings: each group's variables, parsed and frozen at a command's edge. They speak the
  // domain's words (an export format), never the other way round: domain, pipeline and render are
  // handed their settings and do not import config.
  // The report languages (REPORT_LANG, a definition's `lang`) are settings, so config names them.
  config: ['i18n', 'domain', 'shared'],
  domain: ['shared'],
  // The languages a reader can read, how text is formatted in each, and the catalogs of what the
  // workbook and the mail say (a column's English header and description are read from its
  // declaration in domain): pure, below everything that writes for a reader or chooses a language.
  i18n: ['domain', 'shared'],
  wfm: ['config', 'domain', 'shared'],
  pipeline: ['domain', 'shared'],
  render: ['i18n', 'domain', 'shared'],
  destinations: ['config', 'domain', 'shared'],
  // Change tracking, a step of the export: it hashes the exported columns (domain), stores
  // row-hashes.bin in the publication and reads the previous export back (destinations), and
  // speaks the manifest's `previous` and `changes` (render/manifest).
  changes: ['render', 'destinations', 'i18n', 'domain', 'shared'],
  // Export definitions (EXPORTS_FILE): schema, loader, period rules, next runs. A dest is checked
  // by the destinations' own rule (allowed-destination.ts, the one file it takes from there); the
  // queue, the network and delivery are the callers'.
  definitions: ['destinations', 'config', 'i18n', 'domain', 'shared'],
  export: ['changes', 'pipeline', 'render', 'destinations', 'wfm', 'config', 'i18n', 'domain', 'shared'],
  // Redis, queue names, job schemas, producers. The job's result is the manifest's summary, so
  // its schema is read from render/manifest.
  queue: ['render', 'config', 'i18n', 'domain', 'shared'],
  // GET /definitions and the definition form of POST /exports read the export definitions.
  api: ['definitions', 'queue', 'export', 'destinations', 'render', 'config', 'i18n', 'domain', 'shared'],
  // Webhooks: an event is the summary an export job returns (queue/export-job-result), it is
  // delivered through a queue of its own under the queue's names and backoff, and its S3 file
  // links are presigned by the destination that holds the files.
  notify: ['queue', 'destinations', 'render', 'config', 'i18n', 'domain', 'shared'],
  cli: [
    'definitions',
    'api',
    'notify',
    'queue',
    'export',
    'destinations',
    'render',
    'wfm',
    'config',
    'i18n',
    'domain',
    'shared',
  ],
  jobs: [
    'cli',
    'definitions',
    'notify',
    'queue',
    'export',
    'destinations',
    'render',
    'wfm',
    'config',
    'i18n',
    'domain',
    'shared',
  ],
};

/**
 * The workspace packages and the rooms that may import them. The contract (every resource of the
 * upstream's API) lies below domain: a shift record holds the upstream's row, so our vocabulary is
 * built on theirs. The sandbox, the reference upstream, is a command of the CLI (`sandbox`, and
 * `demo`'s upstream) and nothing else's.
 */
const PACKAGE_USERS: Readonly<Record<string, readonly Room[] | 'every room'>> = {
  'wfm-contract': 'every room',
  'wfm-sandbox': ['cli'],
};

/** Libraries that reach the network, a queue or storage: rows in, rows (or bytes) out does without. */
const IO_LIBRARY =
  /^(undici|bullmq|ioredis|fastify|@fastify\/|@bull-board\/|@aws-sdk\/|node:(http|https|net|tls|dgram))/;
const PURE_ROOMS: readonly Room[] = ['domain', 'i18n', 'pipeline', 'render', 'definitions'];
/** What definitions may take from destinations: the rule of where a dest may be, nothing that writes. */
const DEFINITIONS_FROM_DESTINATIONS: readonly string[] = ['src/destinations/allowed-destination.ts'];
/** The one module that talks to exceljs, its untyped internals pinned to its version there. */
const EXCELJS_ADAPTER = 'src/render/xlsx/exceljs-adapter.ts';
/** The one module that reads process.env: every other gets the environment handed in. */
const ENV_READER = 'src/config/load-config.ts';

function roomOf(file: string): Room {
  const parts = file.split('/');
  if (parts[0] === 'jobs') return 'jobs';
  if (parts.length === 2) return 'shared';
  const room = parts[1] as Room;
  if (!(room in MAY_IMPORT)) throw new Error(`${file}: src/${room}/ is not in the rooms table`);
  return room;
}

/** The source files under `dir` (.ts, and .js/.mjs for bins), none when it does not exist. */
function sourceFiles(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

interface Import {
  readonly from: string;
  /** A repository path (src/…, packages/…) for relative imports, the specifier otherwise. */
  readonly to: string;
  readonly relative: boolean;
}

function importsOf(file: string): Import[] {
  // Comments may quote an import; they are not one.
  const text = readFileSync(join(ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  return [...text.matchAll(SPECIFIER)].map((match) => {
    const specifier = match[1] ?? '';
    if (!specifier.startsWith('.')) return { from: file, to: specifier, relative: false };
    const target = relative(ROOT, resolve(ROOT, dirname(file), specifier)).replace(/\.js$/, '.ts');
    return { from: file, to: target, relative: true };
  });
}

const files = [...sourceFiles('src'), ...sourceFiles('jobs')].sort();
const imports = files.flatMap(importsOf);

interface WorkspacePackage {
  /** Its npm name, which is its folder's name under packages/. */
  readonly name: string;
  /** What its src/ and bin/ may import besides node's modules. */
  readonly dependencies: readonly string[];
  /** What its tests may import besides those. */
  readonly devDependencies: readonly string[];
  readonly files: readonly string[];
}

const PACKAGES: readonly WorkspacePackage[] = readdirSync(join(ROOT, 'packages'))
  .sort()
  .map((name) => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8')) as {
      name: string;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    if (manifest.name !== name) throw new Error(`packages/${name} is named ${manifest.name}`);
    return {
      name,
      dependencies: Object.keys(manifest.dependencies ?? {}),
      devDependencies: Object.keys(manifest.devDependencies ?? {}),
      files: ['src', 'test', 'bin'].flatMap((part) => sourceFiles(`packages/${name}/${part}`)),
    };
  });
const packageImports = PACKAGES.flatMap((p) => p.files.flatMap(importsOf));

/** The package a specifier names: `fastify` of `fastify`, `@aws-sdk/x` of `@aws-sdk/x/y`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** Every circle of imports between files (the exporter's and the packages'), each once. */
function circles(): string[][] {
  const next = new Map<string, string[]>();
  for (const i of [...imports, ...packageImports])
    if (i.relative) next.set(i.from, [...(next.get(i.from) ?? []), i.to]);
  // Tarjan's strongly connected components: a component of more than one file holds a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      const selfImport = (next.get(file) ?? []).includes(file);
      if (component.length > 1 || selfImport) found.push(component.sort());
    }
  };
  for (const file of [...files, ...PACKAGES.flatMap((p) => p.files)]) if (!index.has(file)) visit(file);
  return found;
}

describe('the layout', () => {
  it('reads the imports of every file (the reader has not gone blind)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(imports.filter((i) => i.relative).length).toBeGreaterThan(files.length);
    expect(PACKAGES.map((p) => p.name)).toEqual(['wfm-contract', 'wfm-sandbox']);
    for (const p of PACKAGES)
      expect(packageImports.some((i) => i.from.startsWith(`packages/${p.name}/src/`))).toBe(true);
  });

  it('has no contract or sandbox room under src/: they are the packages wfm-contract and wfm-sandbox', () => {
    expect([...sourceFiles('src/contract'), ...sourceFiles('src/sandbox')]).toEqual([]);
  });

  it('has every relative import land on a file of src/ or jobs/', () => {
    const known = new Set(files);
    const lost = imports.filter((i) => i.relative && !known.has(i.to));
    expect(lost.map((i) => `${i.from} imports ${i.to}, which is not a .ts file of src/ or jobs/`)).toEqual(
      [],
    );
  });

  it('has each room import only the rooms below it', () => {
    const broken = imports
      .filter((i) => i.relative)
      .flatMap((i) => {
        const from = roomOf(i.from);
        const to = roomOf(i.to);
        if (from === to || MAY_IMPORT[from].includes(to)) return [];
        return [`${i.from} imports ${i.to}: ${from} may import ${MAY_IMPORT[from].join(', ') || 'nothing'}`];
      });
    expect(broken).toEqual([]);
  });

  it('lets each room import a workspace package only where the package table allows', () => {
    const broken = imports
      .filter((i) => !i.relative && packageOf(i.to) in PACKAGE_USERS)
      .flatMap((i) => {
        const users = PACKAGE_USERS[packageOf(i.to)] ?? [];
        const room = roomOf(i.from);
        if (users === 'every room' || users.includes(room)) return [];
        return [`${i.from} imports ${i.to}: only ${users.join(', ')} may import ${packageOf(i.to)}`];
      });
    expect(broken).toEqual([]);
    expect(Object.keys(PACKAGE_USERS).sort()).toEqual(PACKAGES.map((p) => p.name));
  });

  it('keeps network, queue and storage libraries out of wfm-contract, domain, pipeline, render and definitions', () => {
    const broken = [
      ...imports
        .filter((i) => !i.relative && PURE_ROOMS.includes(roomOf(i.from)) && IO_LIBRARY.test(i.to))
        .map(
          (i) =>
            `${i.from} imports ${i.to}: ${roomOf(i.from)} works on rows and bytes, without I/O libraries`,
        ),
      ...packageImports
        .filter(
          (i) => i.from.startsWith('packages/wfm-contract/src/') && !i.relative && IO_LIBRARY.test(i.to),
        )
        .map((i) => `${i.from} imports ${i.to}: the contract is vocabulary, without I/O libraries`),
    ];
    expect(broken).toEqual([]);
  });

  it('lets only the exceljs adapter import exceljs', () => {
    const exceljs = imports.filter((i) => !i.relative && /^exceljs(\/|$)/.test(i.to));
    expect(exceljs.some((i) => i.from === EXCELJS_ADAPTER)).toBe(true);
    const broken = exceljs
      .filter((i) => i.from !== EXCELJS_ADAPTER)
      .map((i) => `${i.from} imports ${i.to}: only ${EXCELJS_ADAPTER} talks to exceljs`);
    expect(broken).toEqual([]);
  });

  it('keeps every package to itself: no file under packages/ reaches into src/, jobs/, bench/ or another folder', () => {
    const known = new Set(PACKAGES.flatMap((p) => p.files));
    const broken = packageImports
      .filter((i) => i.relative)
      .flatMap((i) => {
        const own = `packages/${i.from.split('/')[1] ?? ''}/`;
        if (!i.to.startsWith(own)) return [`${i.from} imports ${i.to}: a package imports only its own files`];
        return known.has(i.to) ? [] : [`${i.from} imports ${i.to}, which is not a source file of ${own}`];
      });
    expect(broken).toEqual([]);
  });

  it("lets a package import only node's modules and its declared dependencies — never shift-export", () => {
    const broken = PACKAGES.flatMap((p) =>
      packageImports
        .filter((i) => !i.relative && i.from.startsWith(`packages/${p.name}/`) && !i.to.startsWith('node:'))
        .flatMap((i) => {
          const allowed = i.from.startsWith(`packages/${p.name}/test/`)
            ? [...p.dependencies, ...p.devDependencies]
            : p.dependencies;
          if (packageOf(i.to) !== 'shift-export' && allowed.includes(packageOf(i.to))) return [];
          return [`${i.from} imports ${i.to}, which is not a dependency of ${p.name}`];
        }),
    );
    expect(broken).toEqual([]);
  });

  it('has the sandbox stand on the contract and libraries alone, and the contract on zod alone', () => {
    const workspace = (name: string) =>
      PACKAGES.find((p) => p.name === name)?.dependencies.filter(
        (d) => d in PACKAGE_USERS || d === 'shift-export',
      );
    expect(workspace('wfm-sandbox')).toEqual(['wfm-contract']);
    expect(PACKAGES.find((p) => p.name === 'wfm-contract')?.dependencies).toEqual(['zod']);
  });

  it('lets definitions take only the destination rule from destinations', () => {
    const broken = imports
      .filter((i) => i.relative && roomOf(i.from) === 'definitions' && roomOf(i.to) === 'destinations')
      .filter((i) => !DEFINITIONS_FROM_DESTINATIONS.includes(i.to))
      .map(
        (i) => `${i.from} imports ${i.to}: definitions take only ${DEFINITIONS_FROM_DESTINATIONS.join(', ')}`,
      );
    expect(broken).toEqual([]);
  });

  it('reads process.env only in the config loader', () => {
    const readers = files.filter((file) =>
      /\bprocess\.env\b/.test(
        readFileSync(join(ROOT, file), 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/\/\/.*$/gm, ''),
      ),
    );
    expect(readers).toEqual([ENV_READER]);
  });

  it('has no import circle between files', () => {
    expect(circles().map((c) => `circle: ${c.join(' -> ')}`)).toEqual([]);
  });
});
