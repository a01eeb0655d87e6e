// Runs once before the suite: checks that the services the integration tests start are available,
// and stops with one line saying how to get them when they are not.

import { execFileSync } from 'node:child_process';

export default function setup(): void {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      'redis-server is not on PATH: install it (Debian: apt-get install -y redis-server) and run the tests again',
    );
  }
}
