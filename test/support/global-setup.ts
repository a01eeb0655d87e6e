// Runs once before the suite: checks that the services the integration tests start are available,
// and stops with one line saying how to get them when they are not. It exits rather than throws:
// vitest would print "No test files found" and a stack trace around a thrown error.

import { execFileSync } from 'node:child_process';

export const REDIS_SERVER_HINT =
  'redis-server is not on PATH: install it (Debian: apt-get install -y redis-server) and run the tests again';

export default function setup(): void {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    process.stderr.write(`${REDIS_SERVER_HINT}\n`);
    process.exit(1);
  }
}
