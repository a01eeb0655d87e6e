// TLS Redis for tests: a CA made here with `openssl`, a server certificate it signs for the names
// given, and redis-server listening with TLS on one free port (and in plain text on another, only
// so readiness can be checked with PING). The same certificates serve a TLS Redis Cluster
// (redis-cluster.ts). close() stops the server and removes the files.

import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, serverArgs, startRedisProcess, stopChild } from './redis-server.js';

const run = promisify(execFile);

export interface TestCertificates {
  /** The folder holding them; remove it when done. */
  readonly dir: string;
  /** PEM of the CA that signed the server certificate. */
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

export interface TlsRedisServer {
  readonly caFile: string;
  readonly tlsPort: number;
  close(): Promise<void>;
}

async function openssl(dir: string, args: readonly string[]): Promise<void> {
  await run('openssl', args, { cwd: dir, timeout: 30_000 });
}

/** A fresh CA and a server certificate it signs for `subjectAltName` (e.g. `IP:127.0.0.1`). */
export async function makeTestCertificates(subjectAltName: string): Promise<TestCertificates> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-tls-'));
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    const days = ['-days', '2'];
    await openssl(
      dir,
      ['req', '-x509', '-new', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', ...days].concat([
        '-subj',
        '/CN=shift-export test CA',
      ]),
    );
    await openssl(dir, [
      'req',
      '-new',
      ...ec,
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=redis-test',
    ]);
    writeFileSync(join(dir, 'san.cnf'), `subjectAltName=${subjectAltName}\n`);
    await openssl(
      dir,
      ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key'].concat([
        '-CAcreateserial',
        '-out',
        'server.crt',
        ...days,
        '-extfile',
        'san.cnf',
      ]),
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    caFile: join(dir, 'ca.crt'),
    certFile: join(dir, 'server.crt'),
    keyFile: join(dir, 'server.key'),
  };
}

/** redis-server arguments for TLS on `tlsPort` with `certs`; clients need no certificate. */
export function tlsArgs(tlsPort: number, certs: TestCertificates): string[] {
  return [
    '--tls-port',
    String(tlsPort),
    '--tls-cert-file',
    certs.certFile,
    '--tls-key-file',
    certs.keyFile,
    '--tls-ca-cert-file',
    certs.caFile,
    '--tls-auth-clients',
    'no',
  ];
}

/** Starts redis-server with TLS, its certificate signed by a fresh CA for `subjectAltName`. */
export async function startTlsRedisServer(subjectAltName: string): Promise<TlsRedisServer> {
  const certs = await makeTestCertificates(subjectAltName);
  let child: ChildProcess;
  let tlsPort: number;
  try {
    const plainPort = await freePort();
    tlsPort = await freePort();
    child = await startRedisProcess([...serverArgs(plainPort), ...tlsArgs(tlsPort, certs)], plainPort);
  } catch (error) {
    rmSync(certs.dir, { recursive: true, force: true });
    throw error;
  }
  return {
    caFile: certs.caFile,
    tlsPort,
    async close() {
      await stopChild(child);
      rmSync(certs.dir, { recursive: true, force: true });
    },
  };
}
