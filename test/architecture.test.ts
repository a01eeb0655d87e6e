// The layout as a test: which room (a folder under src/, the shared top-level files of src/, or
// jobs/) may import which, which rooms may not load a network, queue or storage library, which one
// file reads process.env, and no import circle between files. Imports are read as text (`from '…'`, `import '…'`, `import('…')`,
// type-only imports included: a type ties a room to another as much as a value does).

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

type Room =
  | 'shared'
  | 'config'
  | 'contract'
  | 'domain'
  | 'wfm'
  | 'pipeline'
  | 'render'
  | 'destinations'
  | 'changes'
  | 'definitions'
  | 'export'
  | 'queue'
  | 'api'
  | 'notify'
  | 'sandbox'
  | 'cli'
  | 'jobs';

/**
 * Who may import whom. The direction is ../shared/STYLE.md's: the entry rooms (jobs, cli) on top,
 * then the use case (export), its stages and ends, domain, and the upstream's contract at the
 * bottom; the shared top-level files of src/ (errors, logger, one-line, version…) import only each
 * other. A room may always import itself.
 */
const MAY_IMPORT: Readonly<Record<Room, readonly Room[]>> = {
  shared: [],
  // The settings: each group's variables, parsed and frozen at a command's edge. They speak the
  // domain's words (an export format), never the other way round: domain, contract, pipeline,
  // render and the sandbox are handed their settings and do not import config.
  config: ['domain', 'shared'],
  // Every resource of ../shared/wfm-interface-spec.md, below domain: a shift record holds the
  // upstream's row, so our vocabulary is built on theirs, and theirs on nothing of ours.
  contract: [],
  domain: ['contract', 'shared'],
  wfm: ['config', 'domain', 'contract', 'shared'],
  pipeline: ['domain', 'contract', 'shared'],
  render: ['domain', 'contract', 'shared'],
  destinations: ['config', 'domain', 'contract', 'shared'],
  // Change tracking, a step of the export: it hashes the exported columns (domain), stores
  // row-hashes.bin in the publication and reads the previous export back (destinations), and
  // speaks the manifest's `previous` and `changes` (render/manifest).
  changes: ['render', 'destinations', 'domain', 'contract', 'shared'],
  // Export definitions (EXPORTS_FILE): schema, loader, period rules, next runs. A dest is checked
  // by the destinations' own rule (allowed-destination.ts, the one file it takes from there); the
  // queue, the network and delivery are the callers'.
  definitions: ['destinations', 'config', 'domain', 'contract', 'shared'],
  export: ['changes', 'pipeline', 'render', 'destinations', 'wfm', 'config', 'domain', 'contract', 'shared'],
  // Redis, queue names, job schemas, producers. The job's result is the manifest's summary, so
  // its schema is read from render/manifest.
  queue: ['render', 'config', 'domain', 'contract', 'shared'],
  // GET /definitions and the definition form of POST /exports read the export definitions.
  api: ['definitions', 'queue', 'export', 'destinations', 'render', 'config', 'domain', 'contract', 'shared'],
  // Webhooks: an event is the summary an export job returns (queue/export-job-result), it is
  // delivered through a queue of its own under the queue's names and backoff, and its S3 file
  // links are presigned by the destination that holds the files.
  notify: ['queue', 'destinations', 'render', 'config', 'domain', 'contract', 'shared'],
  // The reference upstream: it speaks the contract, and nothing of ours that uses it.
  sandbox: ['domain', 'contract', 'shared'],
  cli: [
    'definitions',
    'api',
    'notify',
    'sandbox',
    'queue',
    'export',
    'destinations',
    'render',
    'wfm',
    'config',
    'domain',
    'contract',
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
    'domain',
    'contract',
    'shared',
  ],
};

/** Libraries that reach the network, a queue or storage: rows in, rows (or bytes) out does without. */
const IO_LIBRARY =
  /^(undici|bullmq|ioredis|fastify|@fastify\/|@bull-board\/|@aws-sdk\/|node:(http|https|net|tls|dgram))/;
const PURE_ROOMS: readonly Room[] = ['contract', 'domain', 'pipeline', 'render', 'definitions'];
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

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

interface Import {
  readonly from: string;
  /** A repository path (src/…, jobs/…) for relative imports, the package name otherwise. */
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

const files = [...tsFiles('src'), ...tsFiles('jobs')].sort();
const imports = files.flatMap(importsOf);

/** Every circle of imports between files, each once, as the list of files around it. */
function circles(): string[][] {
  const next = new Map<string, string[]>();
  for (const i of imports) if (i.relative) next.set(i.from, [...(next.get(i.from) ?? []), i.to]);
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
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

describe('the layout', () => {
  it('reads the imports of every file (the reader has not gone blind)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(imports.filter((i) => i.relative).length).toBeGreaterThan(files.length);
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

  it('keeps network, queue and storage libraries out of contract, domain, pipeline, render and definitions', () => {
    const broken = imports
      .filter((i) => !i.relative && PURE_ROOMS.includes(roomOf(i.from)) && IO_LIBRARY.test(i.to))
      .map(
        (i) => `${i.from} imports ${i.to}: ${roomOf(i.from)} works on rows and bytes, without I/O libraries`,
      );
    expect(broken).toEqual([]);
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

  it('lets only the exceljs adapter import exceljs', () => {
    const exceljs = imports.filter((i) => !i.relative && /^exceljs(\/|$)/.test(i.to));
    expect(exceljs.some((i) => i.from === EXCELJS_ADAPTER)).toBe(true);
    const broken = exceljs
      .filter((i) => i.from !== EXCELJS_ADAPTER)
      .map((i) => `${i.from} imports ${i.to}: only ${EXCELJS_ADAPTER} talks to exceljs`);
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
