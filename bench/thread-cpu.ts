// CPU time of the process's main thread alone (Linux: /proc/self/task/<pid>/stat), beside
// process.cpuUsage() of all its threads: their ratio is the serial fraction the bench reports.
// Node 20 has no process.threadCpuUsage(); elsewhere this gives undefined.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** Milliseconds of CPU (user + system) the main thread used so far; undefined off Linux. */
export function mainThreadCpuMs(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces) in parentheses: utime is the 14th
  // field of the line, stime the 15th, in clock ticks.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/**
 * CPU-µs that `run` took: this thread and V8's background threads (process.cpuUsage), so what it
 * leaves for the collector is charged to whatever runs when the collector does.
 */
export function cpuMicros(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}
