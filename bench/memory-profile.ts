// `node dist/bench/memory-profile.js`: where an export's memory goes. Runs `shift-export run`
// once against the sandbox (as the bin's shebang runs it, with its V8 flag) with a sampler
// preloaded in every thread (memory-sampler.ts), then prints the process's peak RSS (VmHWM) and
// each thread's peak V8 heap, external and ArrayBuffer memory; what those do not cover is native
// memory (zlib, code, malloc's arenas) and the collector's slack.
//
//   --rows N          report rows (default 300,000)
//   --formats F       csv, xlsx, csv,xlsx… (default csv,xlsx)
//   --user-per-row    a sandbox whose every row is its own user (the --cardinality line)
//   --set K=V         a setting for the export (e.g. --set EXPORT_MEMORY_MB=32), repeatable
//   --help            these options
//
// The report comes uncompressed unless WFM_COMPRESSION=true is set, as the bench reads it.
// MEMORY_TIMELINE=true also prints each thread's RSS, heap and external memory every 2 s.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BIN, sandboxRunArgs, shebangEnv, shebangFlags, startBenchSandbox } from './child-server.js';
import { MEMORY_SAMPLER_SOURCE, type ThreadMemory } from './memory-sampler.js';

const TOKEN = 'sandbox-admin';
const DAYS = 28;

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '300000' },
    formats: { type: 'string', default: 'csv,xlsx' },
    'user-per-row': { type: 'boolean', default: false },
    set: { type: 'string', multiple: true, default: [] },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(`node dist/bench/memory-profile.js [options]: peak RSS of one \`shift-export run\` against the sandbox
  --rows N          report rows (default 300000)
  --formats F       csv, xlsx, csv,xlsx… (default csv,xlsx)
  --user-per-row    a sandbox whose every row is its own user
  --set K=V         a setting for the export (e.g. --set EXPORT_MEMORY_MB=32), repeatable
WFM_COMPRESSION=true asks for a compressed report; MEMORY_TIMELINE=true prints each thread's memory every 2 s.`);
  process.exit(0);
}
const rows = Number(values.rows);
if (!Number.isInteger(rows) || rows < 1) throw new Error('--rows must be a positive whole number');
const settings = Object.fromEntries(
  values.set.map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--set takes K=V, not ${pair}`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);

const mb = (bytes: number | undefined): string => (bytes === undefined ? '?' : (bytes / 2 ** 20).toFixed(0));

const sandbox = await startBenchSandbox(rows, DAYS, values['user-per-row'] ? ['--user-per-row'] : []);
const scratch = mkdtempSync(join(tmpdir(), 'bench-memory-'));
try {
  const samplerFile = join(scratch, 'memory-sampler.cjs');
  writeFileSync(samplerFile, MEMORY_SAMPLER_SOURCE);
  const sampleDir = join(scratch, 'samples');
  const dest = join(scratch, 'out');
  for (const dir of [sampleDir, dest]) mkdirSync(dir);
  const load = [loadavg()[0] ?? 0];
  const started = performance.now();
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...shebangFlags(), '--require', samplerFile, BIN, ...sandboxRunArgs(DAYS, values.formats, dest)],
      {
        env: {
          ...process.env,
          ...shebangEnv(),
          LOG_LEVEL: 'warn',
          WFM_BASE_URL: sandbox.url,
          WFM_TOKEN: TOKEN,
          WFM_COMPRESSION: process.env['WFM_COMPRESSION'] ?? 'false',
          MEMORY_SAMPLE_DIR: sampleDir,
          ...settings,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    child.once('error', reject);
    child.once('exit', resolve);
  });
  const seconds = (performance.now() - started) / 1000;
  load.push(loadavg()[0] ?? 0);
  if (code !== 0) throw new Error(`shift-export run exited with ${code}`);
  const threads = readdirSync(sampleDir)
    .map((name) => JSON.parse(readFileSync(join(sampleDir, name), 'utf8')) as ThreadMemory)
    .sort((a, b) => a.threadId - b.threadId);
  const main = threads.find((t) => t.threadId === 0);
  console.log(
    `run --format ${values.formats}, ${rows.toLocaleString('en-US')} rows${values['user-per-row'] ? ', every row its own user' : ''}` +
      `${Object.keys(settings).length > 0 ? `, ${values.set.join(' ')}` : ''}: ${seconds.toFixed(1)} s wall, ` +
      `peak RSS (VmHWM) ${mb(main?.vmHwm)} MB; ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}, ` +
      `load average ${load.map((l) => l.toFixed(2)).join(' → ')}`,
  );
  console.log(
    '| thread | samples | peak heap total MB | peak heap used MB | peak external MB | peak ArrayBuffers MB |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const t of threads)
    console.log(
      `| ${t.threadId === 0 ? 'main' : t.threadId} | ${t.samples} | ${mb(t.peak.heapTotal)} | ${mb(t.peak.heapUsed)} | ${mb(t.peak.external)} | ${mb(t.peak.arrayBuffers)} |`,
    );
  const at = main?.atPeakRss;
  if (at !== undefined)
    console.log(
      `main thread at its sampled peak RSS (${mb(at['rss'])} MB, ${((at['atMs'] ?? 0) / 1000).toFixed(1)} s in): heap total ${mb(at['heapTotal'])}, ` +
        `heap used ${mb(at['heapUsed'])}, external ${mb(at['external'])}, ArrayBuffers ${mb(at['arrayBuffers'])} MB`,
    );
  if (process.env['MEMORY_TIMELINE'] === 'true')
    for (const t of threads)
      console.log(
        `timeline of thread ${t.threadId} [s, RSS MB, heap used MB, external MB]: ${JSON.stringify(t.timeline ?? [])}`,
      );
} finally {
  rmSync(scratch, { recursive: true, force: true });
  await sandbox.stop();
}
